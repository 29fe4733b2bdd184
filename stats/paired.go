package stats

import (
	"fmt"
	"math/rand/v2"
	"sort"
)

// The directions a paired test ends with, first words of PairedTest.Verdict.
const (
	PairedSlower = "B slower"
	PairedFaster = "B faster"
	PairedSame   = "no significant difference"
)

// PairedOptions tune Paired.
type PairedOptions struct {
	// Resamples is the bootstrap size (default 2000); Seed makes it reproducible (default 1).
	Resamples int
	Seed      uint64
	// Confidence of the intervals (default 0.95); the Wilcoxon test is run at 1 - Confidence.
	Confidence float64
	// SlowerBy is the fraction by which B must exceed A for a request to count as slower
	// (default 0.10); SlowerByMS, when positive, is an absolute margin in ms instead.
	SlowerBy   float64
	SlowerByMS float64
}

func (o *PairedOptions) defaults() {
	if o.Resamples <= 0 {
		o.Resamples = 2000
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if !(o.Confidence > 0 && o.Confidence < 1) {
		o.Confidence = 0.95
	}
	if !(o.SlowerBy > 0) || !IsFinite(o.SlowerBy) {
		o.SlowerBy = 0.10
	}
	if !IsFinite(o.SlowerByMS) {
		o.SlowerByMS = 0
	}
}

// PairedTest compares two runs of the same trace request by request (B - A per request id),
// which removes the request-to-request variation both runs share: a long prompt is slow on
// both endpoints. It detects a shift with far fewer requests than comparing the runs'
// distributions (BootstrapDiff and MannWhitneyU), when the runs are of the same requests.
type PairedTest struct {
	Name string `json:"name"` // e.g. "ttft"
	// N counts the requests ok in both runs, the pairs compared.
	N int `json:"n"`
	// MedianA is A's median, the base of the relative effect.
	MedianA float64 `json:"median_a_ms"`
	// MedianDiff is median(B) - median(A) and P95Diff p95(B) - p95(A) over the pairs, their
	// intervals from resampled pairs (quantileDiffIntervals says why the effect is a
	// difference of quantiles); the verdict's direction is MedianDiff's.
	MedianDiff Interval `json:"median_diff_ms"`
	P95Diff    Interval `json:"p95_diff_ms"`
	// TypicalDiff is the median of the per-request differences B - A, what the difference
	// plot marks: it can stand away from 0 when MedianDiff does not (two step loops at
	// different phases), and it is not what the verdict claims.
	TypicalDiff float64 `json:"typical_diff_ms"`
	// WilcoxonP is the two-sided Wilcoxon signed-rank p-value of the differences.
	WilcoxonP float64 `json:"wilcoxon_p"`
	// SlowerShare is the fraction of pairs where B was slower than A by more than SlowerThan
	// (e.g. "+10%" or "+50ms").
	SlowerShare float64 `json:"slower_share"`
	SlowerThan  string  `json:"slower_than"`
	Confidence  float64 `json:"confidence"`
	// Direction is PairedSlower, PairedFaster or PairedSame; Verdict is the line to print,
	// starting with it.
	Direction string `json:"direction"`
	Verdict   string `json:"verdict"`
}

// Paired compares B's per-request values with A's (keyed by request id, in ms; a request
// absent from either map, e.g. failed, is left out).
func Paired(name string, a, b map[string]float64, o PairedOptions) PairedTest {
	return PairedOf(name, Pairs(a, b), o)
}

// PairedOf is Paired over pairs already matched (Pairs).
func PairedOf(name string, ps []Pair, o PairedOptions) PairedTest {
	o.defaults()
	t := PairedTest{Name: name, N: len(ps), Confidence: o.Confidence, WilcoxonP: 1,
		SlowerThan: slowerThan(o), Direction: PairedSame}
	if len(ps) == 0 {
		t.Verdict = PairedSame + ": no request succeeded in both runs"
		return t
	}
	a, b, d := PairColumns(ps)
	t.SlowerShare = slowerShare(a, b, o)
	_, t.WilcoxonP = SignedRank(d)
	rng := rand.New(rand.NewPCG(o.Seed, 0x9a12ed))
	t.MedianDiff, t.P95Diff = quantileDiffIntervals(rng, a, b, o.Resamples, o.Confidence)
	sort.Float64s(d)
	sort.Float64s(a)
	t.MedianA = QuantileSorted(a, 0.5)
	t.TypicalDiff = QuantileSorted(d, 0.5)
	t.Direction = pairedDirection(t.MedianDiff, t.WilcoxonP, 1-o.Confidence)
	t.Verdict = t.line()
	return t
}

// pairedDirection claims a difference only when the interval of median(B) - median(A)
// excludes zero AND the Wilcoxon test rejects at alpha. Each guards the other's weakness: the
// percentile bootstrap of a median is overconfident with few or heavily tied values (one pair
// gives an interval of a single point), while the Wilcoxon test says the per-request
// differences lean one way but not by how much, and leans with a skewed difference whose
// runs' medians agree (two step loops at different phases, quantileDiffIntervals).
// Requiring both keeps the false-claim rate at or under each test's own level.
func pairedDirection(median Interval, p, alpha float64) string {
	switch {
	case !median.Excludes0() || !(p < alpha):
		return PairedSame
	case median.Lo > 0:
		return PairedSlower
	}
	return PairedFaster
}

// slowerShare is the fraction of pairs where B exceeds A by more than the margin.
func slowerShare(a, b []float64, o PairedOptions) float64 {
	slower := 0
	for i := range a {
		limit := a[i] * (1 + o.SlowerBy)
		if o.SlowerByMS > 0 {
			limit = a[i] + o.SlowerByMS
		}
		if b[i] > limit {
			slower++
		}
	}
	return float64(slower) / float64(len(a))
}

func slowerThan(o PairedOptions) string {
	if o.SlowerByMS > 0 {
		return "+" + Fig(o.SlowerByMS) + "ms"
	}
	return "+" + Fig(100*o.SlowerBy) + "%"
}

// line is the verdict: direction, then the effect with its interval and evidence, e.g.
// "B slower: median ttft +5.1 ms [95% CI +4.8, +5.4] (+5.0% of A's median), Wilcoxon
// p = 1.2e-40, n = 300; p95 +31 ms [95% CI +20, +44]; 62% of requests slower by more than +10%".
func (t PairedTest) line() string {
	conf := Fig(100 * t.Confidence)
	s := fmt.Sprintf("%s: median %s %s ms [%s%% CI %s, %s]", t.Direction, t.Name,
		SignedFig(t.MedianDiff.Delta), conf, SignedFig(t.MedianDiff.Lo), SignedFig(t.MedianDiff.Hi))
	if t.MedianA > 0 {
		s += fmt.Sprintf(" (%s%% of A's median)", SignedFig(100*t.MedianDiff.Delta/t.MedianA))
	}
	s += fmt.Sprintf(", Wilcoxon p = %.2g, n = %d; p95 %s ms [%s%% CI %s, %s]; %s%% of requests slower by more than %s",
		t.WilcoxonP, t.N, SignedFig(t.P95Diff.Delta), conf, SignedFig(t.P95Diff.Lo), SignedFig(t.P95Diff.Hi),
		Fig(100*t.SlowerShare), t.SlowerThan)
	return s
}
