package scrape

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// parse reads one metrics page in the format its Content-Type names (Prometheus text,
// OpenMetrics or delimited protobuf) and returns the table's series present on it under their
// keys: summed over label sets (averaged for Mean gauges), or one per label value under
// PerLabel. Families of other names are skipped.
func parse(r io.Reader, format expfmt.Format, names Names) (map[string]float64, error) {
	idx := index(names)
	acc := accumulator{}
	dec := expfmt.NewDecoder(r, format)
	for {
		var mf dto.MetricFamily
		err := dec.Decode(&mf)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("parsing metrics: %w", err)
		}
		refs := idx.lookup(&mf)
		if len(refs) == 0 {
			continue
		}
		for _, m := range mf.GetMetric() {
			v, ok := value(m)
			if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			for _, ref := range refs {
				acc.add(ref, labelValue(m, names.PerLabel), v)
			}
		}
	}
	return acc.values(names), nil
}

// ref points at one name of one series: the series' place in the table and the name's rank
// among its names (0 is the preferred one).
type ref struct{ series, rank int }

// nameIndex maps a page name to the series that read it.
type nameIndex map[string][]ref

func index(names Names) nameIndex {
	idx := nameIndex{}
	for i, s := range names.Series {
		for rank, name := range s.From {
			idx[name] = append(idx[name], ref{i, rank})
		}
	}
	return idx
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
	label string
}

// accumulator gathers a page's values by series, name and label value.
type accumulator map[cellKey]*cell

func (a accumulator) add(r ref, label string, v float64) {
	k := cellKey{r, label}
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
// is left out unless all its names are on the page (one part alone is not the whole).
func (a accumulator) values(names Names) map[string]float64 {
	best := map[int]int{}
	parts := map[int]int{}
	for k := range a {
		if r, ok := best[k.series]; !ok || k.rank < r {
			best[k.series] = k.rank
		}
		parts[k.series]++
	}
	out := map[string]float64{}
	for k, c := range a {
		s := names.Series[k.series]
		switch {
		case s.Kind == Parts && parts[k.series] == len(s.From):
			out[s.Key] += c.sum
		case s.Kind == Parts:
			continue
		case best[k.series] != k.rank:
			continue
		case names.PerLabel != "":
			out[labelKey(s.Key, names.PerLabel, k.label)] = c.max
		case s.Kind == Mean:
			out[s.Key] = c.sum / float64(c.n)
		default:
			out[s.Key] = c.sum
		}
	}
	return out
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
