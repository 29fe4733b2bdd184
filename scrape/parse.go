package scrape

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/llm-replay/replay/results"
)

// pageStats counts what parse left out of a page: lines that do not parse (the rest of the
// page is read without them) and values dropped as sentinels.
type pageStats struct {
	BadLines, Dropped int
	// From names, per key kept, the page's series that filled it (name and selector; a Parts
	// series' names joined by " + "): where each figure came from.
	From     map[string]string
	families int
}

// maxBadLines bounds the lines dropped from one page: a page mostly malformed is no page.
const maxBadLines = 100

// parse reads one metrics page in the format its Content-Type names (Prometheus text,
// OpenMetrics or delimited protobuf) and returns the table's series present on it under their
// keys: summed over label sets (averaged for Mean gauges), or one per label value under
// PerLabel. Families of other names are skipped. A text page with malformed lines is read
// without them, each dropped line counted, so one bad series does not cost the scrape the
// others: the text parser stops at the first error and names its line, which is cut and
// the page parsed again.
func parse(r io.Reader, format expfmt.Format, names Names) (map[string]float64, pageStats, error) {
	switch format.FormatType() {
	case expfmt.TypeProtoDelim, expfmt.TypeOpenMetrics:
		return decode(r, format, names)
	}
	body, err := io.ReadAll(r)
	if err != nil {
		return nil, pageStats{}, fmt.Errorf("reading metrics: %w", err)
	}
	lines := bytes.SplitAfter(body, []byte("\n"))
	var first error
	for bad := 0; ; bad++ {
		vals, st, err := decode(bytes.NewReader(bytes.Join(lines, nil)), format, names)
		st.BadLines = bad
		if err == nil && bad > 0 && st.families == 0 {
			return nil, st, first // nothing but bad lines: not a metrics page at all
		}
		var pe expfmt.ParseError
		if err == nil || !errors.As(err, &pe) || pe.Line < 1 || pe.Line > len(lines) || bad == maxBadLines {
			return vals, st, err
		}
		if first == nil {
			first = err
		}
		lines = slices.Delete(lines, pe.Line-1, pe.Line)
	}
}

// decode reads one page, failing at its first malformed line.
func decode(r io.Reader, format expfmt.Format, names Names) (map[string]float64, pageStats, error) {
	idx := index(names)
	acc := accumulator{}
	var st pageStats
	dec := expfmt.NewDecoder(r, format)
	for {
		var mf dto.MetricFamily
		err := dec.Decode(&mf)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, st, fmt.Errorf("parsing metrics: %w", err)
		}
		st.families++
		refs := idx.lookup(&mf)
		blocks := make([]bool, len(refs))
		for i, ref := range refs {
			blocks[i] = countsBlocks(names.Series[ref.series].Key, &mf)
		}
		for _, m := range mf.GetMetric() {
			v, ok := value(m)
			if !ok {
				continue
			}
			for i, ref := range refs {
				if ref.label != "" && labelValue(m, ref.label) != ref.value {
					continue
				}
				if sentinel(names, names.Series[ref.series], v) {
					st.Dropped++
					continue
				}
				acc.add(cellKey{ref, labelValue(m, names.PerLabel), blocks[i]}, v)
			}
		}
	}
	vals, from := acc.values(names)
	st.From = from
	return vals, st, nil
}

// ref points at one name of one series: the series' place in the table, the name's rank
// among its names (0 is the preferred one) and the name's label selector, if any.
type ref struct {
	series, rank int
	label, value string
}

// nameIndex maps a page name to the series that read it.
type nameIndex map[string][]ref

func index(names Names) nameIndex {
	idx := nameIndex{}
	for i, s := range names.Series {
		for rank, from := range s.From {
			name, label, value := selector(from)
			idx[name] = append(idx[name], ref{i, rank, label, value})
		}
	}
	return idx
}

// selector splits name{label="value"} into its parts; a plain name has no label.
func selector(from string) (name, label, value string) {
	name, sel, ok := strings.Cut(from, "{")
	if !ok {
		return from, "", ""
	}
	label, quoted, _ := strings.Cut(strings.TrimSuffix(sel, "}"), "=")
	value, err := strconv.Unquote(quoted)
	if err != nil {
		value = quoted
	}
	return name, label, value
}

// lookup is the series a family feeds. The Prometheus text format names a counter family
// with its _total suffix (as the Python client writes it); OpenMetrics names it without, so
// a counter family also matches its name plus _total.
func (idx nameIndex) lookup(mf *dto.MetricFamily) []ref {
	name := mf.GetName()
	refs := idx[name]
	if mf.GetType() == dto.MetricType_COUNTER && !strings.HasSuffix(name, "_total") {
		refs = append(refs[:len(refs):len(refs)], idx[name+"_total"]...)
	}
	return refs
}

// cell accumulates one name's values for one label value.
type cell struct {
	sum, max float64
	n        int
}

type cellKey struct {
	ref
	perLabel string
	// blocks marks a family that counts blocks where its key counts tokens (unit.go).
	blocks bool
}

// accumulator gathers a page's values by series, name and label value.
type accumulator map[cellKey]*cell

func (a accumulator) add(k cellKey, v float64) {
	c := a[k]
	if c == nil {
		c = &cell{max: v}
		a[k] = c
	}
	c.sum += v
	c.max = max(c.max, v)
	c.n++
}

// values resolves the cells: per series, its best-ranked name present on the page; then the
// sum, the mean or (per label) the largest value. A Parts series adds every name's sum, and
// is left out unless all its names are on the page (one part alone is not the whole). from
// names the page's series behind each key.
func (a accumulator) values(names Names) (vals map[string]float64, from map[string]string) {
	best := map[int]int{}
	parts := map[int]int{}
	for k := range a {
		if r, ok := best[k.series]; !ok || k.rank < r {
			best[k.series] = k.rank
		}
		parts[k.series]++
	}
	a.pair(names, best)
	out, from := map[string]float64{}, map[string]string{}
	for k, c := range a {
		s := names.Series[k.series]
		key := s.Key
		if k.blocks {
			key = inBlocks[key]
		}
		switch {
		case s.Kind == Parts && parts[k.series] == len(s.From):
			out[key] += c.sum
			from[key] = strings.Join(s.From, " + ")
			continue
		case s.Kind == Parts:
			continue
		case best[k.series] != k.rank:
			continue
		case names.PerLabel != "":
			out[labelKey(key, names.PerLabel, k.perLabel)] = c.max
		case s.Kind == Mean:
			out[key] = c.sum / float64(c.n)
		default:
			out[key] = c.sum
		}
		from[key] = s.From[k.rank]
	}
	return out, from
}

// pairedKeys are read from one generation of names: a hit rate of hits over queries is
// only a rate when both count the same thing (vLLM v1 first counted blocks, then tokens, and
// renamed the pair in 0.10; a page may carry both generations).
var pairedKeys = [2]string{results.PrefixCacheQueriedTokens, results.PrefixCacheHitTokens}

// pair moves the paired series to the best rank both have on the page; with none in common
// (one generation's queries beside another's hits) neither is kept.
func (a accumulator) pair(names Names, best map[int]int) {
	q, h := -1, -1
	for i, s := range names.Series {
		switch s.Key {
		case pairedKeys[0]:
			q = i
		case pairedKeys[1]:
			h = i
		}
	}
	_, hasQ := best[q]
	_, hasH := best[h]
	if !hasQ || !hasH {
		return
	}
	ranks := map[int][2]bool{}
	for k := range a {
		if k.series == q || k.series == h {
			r := ranks[k.rank]
			r[boolIndex(k.series == h)] = true
			ranks[k.rank] = r
		}
	}
	common := -1
	for rank, r := range ranks {
		if r[0] && r[1] && (common < 0 || rank < common) {
			common = rank
		}
	}
	best[q], best[h] = common, common
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// labelKey is a per-label series' key, in Prometheus's own notation: Key{label="value"}.
func labelKey(key, label, value string) string {
	return key + "{" + label + "=" + strconv.Quote(value) + "}"
}

// labelValue is a metric's value of the label, "" when it has none or label is "".
func labelValue(m *dto.Metric, label string) string {
	if label == "" {
		return ""
	}
	for _, lp := range m.GetLabel() {
		if lp.GetName() == label {
			return lp.GetValue()
		}
	}
	return ""
}

// value is a counter's, gauge's or untyped metric's value, and a histogram's or summary's
// sum (a histogram of generated tokens per request sums to the tokens generated).
func value(m *dto.Metric) (float64, bool) {
	switch {
	case m.Counter != nil:
		return m.Counter.GetValue(), true
	case m.Gauge != nil:
		return m.Gauge.GetValue(), true
	case m.Untyped != nil:
		return m.Untyped.GetValue(), true
	case m.Histogram != nil:
		return m.Histogram.GetSampleSum(), true
	case m.Summary != nil:
		return m.Summary.GetSampleSum(), true
	}
	return 0, false
}
