package trend

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/llm-replay/replay/analysis"
)

// trend.go puts many runs of one trace side by side (replay trend): a stack's variance from run
// to run, across the day and the week, is part of its capacity. Each run is a summary.json;
// here are the per-run figures, the spread, and the rule that flags a run outside the band of
// the others.

// File and PageFile are replay trend's outputs inside its --out folder.
const (
	File     = "trend.json"
	PageFile = "trend.html"
)

// DefaultK is the band's half-width in robust standard deviations (see Band).
const DefaultK = 3

// The band's least half-width: runs of a steady stack differ by some percent, and a MAD near 0
// (most runs alike) must not make that an outlier. Latencies: 20% of the median, since a run's
// p95 rests on its few slowest requests and one scheduling hiccup of a busy load generator
// moves it by that much; goodput: 5 percentage points.
const (
	trendFloorPct     = 20
	trendFloorGoodput = 5
)

// Run is one run's figures.
type Run struct {
	Dir       string    `json:"dir"`
	StartedAt time.Time `json:"started_at"`
	Trace     string    `json:"trace"`
	Requests  int64     `json:"requests"`
	Failed    int64     `json:"failed"`
	TTFTP50   float64   `json:"ttft_p50_ms"`
	TTFTP95   float64   `json:"ttft_p95_ms"`
	TTFTP99   float64   `json:"ttft_p99_ms"`
	// GoodputPct is the share of requests meeting every SLO limit; nil without an SLO.
	GoodputPct *float64 `json:"goodput_pct"`
	OutputTokS float64  `json:"output_tok_s"`
	// Outside names the figures outside the band of the other runs; empty when none is.
	Outside []string `json:"outside,omitempty"`
}

// Spread is one figure's spread over the runs: median, MAD (median absolute deviation),
// min, max and the coefficient of variation (stddev / mean, percent).
type Spread struct {
	Median float64 `json:"median"`
	MAD    float64 `json:"mad"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	CVPct  float64 `json:"cv_pct"`
}

// Trend is trend.json.
type Trend struct {
	// Rule says how a run is flagged, in words.
	Rule   string            `json:"rule"`
	K      float64           `json:"k"`
	Runs   []Run             `json:"runs"`
	Spread map[string]Spread `json:"spread"`
	// Flagged lists the runs (their folders) outside the band on any judged figure.
	Flagged []string `json:"flagged"`
}

// trendFigure is one figure of a run: its name, its getter (false: the run has none) and
// whether it is judged against the band or only shown.
type trendFigure struct {
	name   string
	get    func(r *Run) (float64, bool)
	judged bool
	// floor is the band's least half-width around median m.
	floor func(m float64) float64
}

func relFloor(m float64) float64 { return trendFloorPct / 100.0 * math.Abs(m) }
func goodFloor(float64) float64  { return trendFloorGoodput }

func always(f func(r *Run) float64) func(r *Run) (float64, bool) {
	return func(r *Run) (float64, bool) { return f(r), true }
}

var trendFigures = []trendFigure{
	{"ttft_p50_ms", always(func(r *Run) float64 { return r.TTFTP50 }), true, relFloor},
	{"ttft_p95_ms", always(func(r *Run) float64 { return r.TTFTP95 }), true, relFloor},
	{"goodput_pct", func(r *Run) (float64, bool) {
		if r.GoodputPct == nil {
			return 0, false
		}
		return *r.GoodputPct, true
	}, true, goodFloor},
	// p99 rests on the slowest 1% of requests: shown, too noisy to judge a run by.
	{"ttft_p99_ms", always(func(r *Run) float64 { return r.TTFTP99 }), false, relFloor},
	{"output_tok_s", always(func(r *Run) float64 { return r.OutputTokS }), false, relFloor},
}

// RunOf is a run's figures from its summary.
func RunOf(dir string, s *analysis.Summary) Run {
	r := Run{Dir: dir, StartedAt: s.Run.StartedAt, Trace: s.Run.Trace, Requests: s.Requests.Total, Failed: s.Requests.Failed,
		TTFTP50: s.TTFT.P50, TTFTP95: s.TTFT.P95, TTFTP99: s.TTFT.P99, OutputTokS: s.Throughput.OutputTokS}
	if g := s.Goodput; g != nil {
		v := g.AllPct
		r.GoodputPct = &v
	}
	return r
}

// median of xs (not empty); xs is sorted in place.
func median(xs []float64) float64 {
	sort.Float64s(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// mad is the median absolute deviation of xs from m.
func mad(xs []float64, m float64) float64 {
	d := make([]float64, len(xs))
	for i, x := range xs {
		d[i] = math.Abs(x - m)
	}
	return median(d)
}

// Band is the band the other runs set for one latency figure: their median ± max(k x
// 1.4826 x their MAD, 20% of their median). 1.4826 x MAD estimates the standard deviation of
// normal data while one outlier cannot move it (a mean and a stddev would be dragged by the
// very run being judged); the floor keeps a steady stack's noise inside (goodput's floor is 5
// points instead, trendBand).
func Band(others []float64, k float64) (lo, hi float64) {
	return trendBand(others, k, relFloor)
}

func trendBand(others []float64, k float64, floor func(float64) float64) (lo, hi float64) {
	xs := append([]float64(nil), others...)
	m := median(xs)
	half := math.Max(k*1.4826*mad(xs, m), floor(m))
	return m - half, m + half
}

// Build orders the runs by start time, computes the spread of each figure and flags every
// run that is outside the band of the others (leave one out: the run judged never widens its
// own band) on a judged figure: TTFT p50, TTFT p95, and goodput when the runs had an SLO. It
// needs three runs or more, since a band of one other run says nothing.
func Build(runs []Run, k float64) (*Trend, error) {
	if len(runs) < 3 {
		return nil, fmt.Errorf("trend needs 3 runs or more to tell one outside the others' band, got %d", len(runs))
	}
	if !(k > 0) {
		return nil, fmt.Errorf("--k %v: want a positive number of robust standard deviations", k)
	}
	runs = append([]Run(nil), runs...)
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].StartedAt.Before(runs[j].StartedAt) })
	t := &Trend{K: k, Spread: map[string]Spread{}, Flagged: []string{},
		Rule: fmt.Sprintf("a run is flagged when its TTFT p50, TTFT p95 or goodput lies outside the other runs' median ± max(%g x 1.4826 x MAD, a floor of %d%% of the median for TTFT, %d points for goodput)", k, trendFloorPct, trendFloorGoodput)}
	for i := range runs {
		runs[i].Outside = nil
	}
	for _, f := range trendFigures {
		var vals []float64
		for i := range runs {
			if v, ok := f.get(&runs[i]); ok {
				vals = append(vals, v)
			}
		}
		if len(vals) == 0 {
			continue
		}
		t.Spread[f.name] = spreadOf(vals)
		if !f.judged || len(vals) < 3 {
			continue // shown, not judged
		}
		for i := range runs {
			v, ok := f.get(&runs[i])
			if !ok {
				continue
			}
			var others []float64
			for j := range runs {
				if o, ok := f.get(&runs[j]); ok && j != i {
					others = append(others, o)
				}
			}
			if lo, hi := trendBand(others, k, f.floor); v < lo || v > hi {
				runs[i].Outside = append(runs[i].Outside, fmt.Sprintf("%s %.4g outside [%.4g, %.4g]", f.name, v, lo, hi))
			}
		}
	}
	for _, r := range runs {
		if len(r.Outside) > 0 {
			t.Flagged = append(t.Flagged, r.Dir)
		}
	}
	t.Runs = runs
	return t, nil
}

func spreadOf(vals []float64) Spread {
	xs := append([]float64(nil), vals...)
	m := median(xs)
	s := Spread{Median: analysis.Round3(m), MAD: analysis.Round3(mad(xs, m)), Min: xs[0], Max: xs[len(xs)-1]}
	var sum, sq float64
	for _, v := range vals {
		sum += v
	}
	mean := sum / float64(len(vals))
	for _, v := range vals {
		sq += (v - mean) * (v - mean)
	}
	if len(vals) > 1 && mean != 0 {
		s.CVPct = analysis.Round3(100 * math.Sqrt(sq/float64(len(vals)-1)) / math.Abs(mean))
	}
	return s
}

// Traces names the distinct traces the runs replayed, for a warning when they differ.
func Traces(runs []Run) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range runs {
		if !seen[r.Trace] {
			seen[r.Trace] = true
			out = append(out, r.Trace)
		}
	}
	sort.Strings(out)
	return out
}

// String is the flag of a run in one line, for the terminal.
func (r Run) String() string {
	if len(r.Outside) == 0 {
		return "within the band"
	}
	return "OUTSIDE: " + strings.Join(r.Outside, "; ")
}
