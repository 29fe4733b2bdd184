package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/stats"
)

// Options tune Distributions.
type Options struct {
	// LabelA and LabelB describe the runs in headers (e.g. their directories; default "A" and
	// "B"). Verdicts and tables call them A and B.
	LabelA, LabelB string
	// Resamples is the bootstrap size (default 2000); Seed makes it reproducible (default 1).
	Resamples int
	Seed      uint64
	// Confidence of the intervals (default 0.95).
	Confidence float64
}

func (o *Options) defaults() {
	if o.LabelA == "" {
		o.LabelA = "A"
	}
	if o.LabelB == "" {
		o.LabelB = "B"
	}
	if o.Resamples <= 0 {
		o.Resamples = 2000
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if !(o.Confidence > 0 && o.Confidence < 1) {
		o.Confidence = 0.95
	}
}

// Row is one figure side by side; Delta = B - A.
type Row struct {
	Metric   string  `json:"metric"`
	Stat     string  `json:"stat"`
	Unit     string  `json:"unit"`
	A        float64 `json:"a"`
	B        float64 `json:"b"`
	Delta    float64 `json:"delta"`
	DeltaPct float64 `json:"delta_pct"` // of A; 0 when A is 0
}

// Test is one bootstrap comparison: B's statistic minus A's, with its interval.
type Test struct {
	Name       string         `json:"name"` // e.g. "p95 TTFT"
	A          float64        `json:"a_ms"`
	B          float64        `json:"b_ms"`
	Interval   stats.Interval `json:"diff_ms"`
	N          [2]int         `json:"n"`
	Confidence float64        `json:"confidence"`
}

// Comparison is the outcome of Distributions: side-by-side figures, the significance tests and a
// one-line verdict.
type Comparison struct {
	LabelA, LabelB string
	A, B           *analysis.Summary
	Rows           []Row
	// Tests are the bootstrap tests: p95 TTFT and p50 e2e, in that order.
	Tests []Test
	// TTFTMannWhitney tests whether B's TTFTs tend to be larger than A's.
	TTFTMannWhitney stats.MannWhitney
	// Slower is "A", "B", "mixed" or "" (no significant difference).
	Slower  string
	Verdict string

	ttftA, ttftB, e2eA, e2eB []float64 // ascending, ms
}

// Distributions sets run B against run A (typically the same trace against two endpoints) by
// their distributions, as `replay compare` does. Both aggregations are closed here. The verdict rests on bootstrap intervals of the differences in
// p95 TTFT and p50 e2e: a run is called slower only when an interval excludes zero.
func Distributions(a, b *analysis.Metrics, sa, sb *analysis.Summary, o Options) *Comparison {
	o.defaults()
	c := &Comparison{LabelA: o.LabelA, LabelB: o.LabelB, A: sa, B: sb}
	c.ttftA, c.e2eA = a.LatencySamplesMS()
	c.ttftB, c.e2eB = b.LatencySamplesMS()
	c.Rows = compareRows(sa, sb)
	rng := rand.New(rand.NewPCG(o.Seed, 0xc0ffee))
	c.Tests = []Test{
		{Name: "p95 TTFT", A: stats.QuantileSorted(c.ttftA, 0.95), B: stats.QuantileSorted(c.ttftB, 0.95),
			Interval: stats.BootstrapDiff(rng, c.ttftA, c.ttftB, 0.95, o.Resamples, o.Confidence),
			N:        [2]int{len(c.ttftA), len(c.ttftB)}, Confidence: o.Confidence},
		{Name: "p50 e2e", A: stats.QuantileSorted(c.e2eA, 0.5), B: stats.QuantileSorted(c.e2eB, 0.5),
			Interval: stats.BootstrapDiff(rng, c.e2eA, c.e2eB, 0.5, o.Resamples, o.Confidence),
			N:        [2]int{len(c.e2eA), len(c.e2eB)}, Confidence: o.Confidence},
	}
	c.TTFTMannWhitney = stats.MannWhitneyU(c.ttftA, c.ttftB)
	c.Slower, c.Verdict = verdict(c.Tests)
	return c
}

func signedMS(v float64) string {
	if math.IsInf(v, 0) {
		if v > 0 {
			return "+inf"
		}
		return "-inf"
	}
	return fmt.Sprintf("%+.0f", v)
}

func (t Test) describe() string { return t.Name + " " + t.interval() }

// interval reads "+123 ms [95% CI +80, +170]".
func (t Test) interval() string {
	return fmt.Sprintf("%s ms [%.0f%% CI %s, %s]", signedMS(t.Interval.Delta),
		100*t.Confidence, signedMS(t.Interval.Lo), signedMS(t.Interval.Hi))
}

// verdict names the slower run from the tests whose interval excludes zero.
func verdict(tests []Test) (slower, line string) {
	var up, down, all []string
	for _, t := range tests {
		all = append(all, t.describe())
		if !t.Interval.Excludes0() {
			continue
		}
		if t.Interval.Delta > 0 {
			up = append(up, t.describe())
		} else {
			down = append(down, t.describe())
		}
	}
	switch {
	case len(up) > 0 && len(down) > 0:
		return "mixed", fmt.Sprintf("mixed: B is slower on %s but faster on %s", strings.Join(up, "; "), strings.Join(down, "; "))
	case len(up) > 0:
		return "B", "B is slower: " + strings.Join(up, "; ")
	case len(down) > 0:
		// Deltas are B - A; say it from A's side with the signs flipped.
		var flipped []string
		for _, t := range tests {
			if t.Interval.Excludes0() {
				t.Interval = stats.Interval{Delta: -t.Interval.Delta, Lo: -t.Interval.Hi, Hi: -t.Interval.Lo}
				flipped = append(flipped, t.describe())
			}
		}
		return "A", "A is slower: " + strings.Join(flipped, "; ")
	}
	return "", fmt.Sprintf("no significant difference (%s)", strings.Join(all, "; "))
}

func compareRows(a, b *analysis.Summary) []Row {
	var rows []Row
	add := func(metric, stat, unit string, va, vb float64) {
		r := Row{Metric: metric, Stat: stat, Unit: unit, A: va, B: vb, Delta: analysis.Round3(vb - va)}
		if va != 0 {
			r.DeltaPct = analysis.Round3(100 * (vb - va) / va)
		}
		rows = append(rows, r)
	}
	thought := a.Thought() || b.Thought()
	da, db := a.DistRowsWith(thought), b.DistRowsWith(thought)
	for i := range da {
		x, y := da[i].D, db[i].D
		add(da[i].Name, "p50", "ms", x.P50, y.P50)
		add(da[i].Name, "p95", "ms", x.P95, y.P95)
		add(da[i].Name, "p99", "ms", x.P99, y.P99)
		add(da[i].Name, "max", "ms", x.Max, y.Max)
	}
	add("throughput", "requests", "/s", a.Throughput.ReqS, b.Throughput.ReqS)
	add("throughput", "output tokens", "/s", a.Throughput.OutputTokS, b.Throughput.OutputTokS)
	add("requests", "failed", "", float64(a.Requests.Failed), float64(b.Requests.Failed))
	add("requests", "total", "", float64(a.Requests.Total), float64(b.Requests.Total))
	if a.Goodput != nil && b.Goodput != nil {
		for _, k := range analysis.SLONames() {
			va, okA := a.Goodput.MetPct[k]
			vb, okB := b.Goodput.MetPct[k]
			if okA && okB {
				add("goodput", k+" met", "%", va, vb)
			}
		}
		add("goodput", "all met", "%", a.Goodput.AllPct, b.Goodput.AllPct)
	}
	return rows
}
