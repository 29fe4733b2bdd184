package stats

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// pairedRuns draws n requests' TTFTs for run A, lognormal (median 200 ms, sigma sigma) so that
// requests differ a lot, and B's from A's: B = A × scale × (1 + N(0, noise)).
func pairedRuns(seed uint64, n int, sigma, scale, noise float64) (a, b map[string]float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	a, b = make(map[string]float64, n), make(map[string]float64, n)
	for i := range n {
		id := fmt.Sprintf("r%05d", i)
		a[id] = 200 * math.Exp(sigma*rng.NormFloat64())
		b[id] = a[id] * scale * (1 + noise*rng.NormFloat64())
	}
	return a, b
}

func TestPairedSameDistributionNoClaim(t *testing.T) {
	claims := 0
	const seeds = 30
	for seed := uint64(1); seed <= seeds; seed++ {
		a, b := pairedRuns(seed, 300, 0.8, 1, 0.03)
		p := Paired("ttft", a, b, PairedOptions{Seed: seed})
		if p.Direction != PairedSame {
			claims++
			t.Logf("seed %d: %s", seed, p.Verdict)
		}
		if !strings.HasPrefix(p.Verdict, p.Direction) {
			t.Fatalf("verdict %q does not start with %q", p.Verdict, p.Direction)
		}
	}
	if claims > 1 {
		t.Errorf("claimed a difference in %d of %d seeds", claims, seeds)
	}
	t.Logf("false claims: %d of %d", claims, seeds)
}

// stepLoopRuns are two servers of one configuration whose work goes out at step boundaries,
// every T ms, B's boundaries phase ms after A's: a request arriving at u waits for the next
// boundary on each, then its own service time (lognormal, median 30 ms). Their TTFT
// distributions are the same; per request, B - A is phase for most requests and phase - T for
// the rest.
func stepLoopRuns(seed uint64, n int, T, phase float64) (a, b map[string]float64) {
	rng := rand.New(rand.NewPCG(seed, 11))
	a, b = make(map[string]float64, n), make(map[string]float64, n)
	wait := func(u, off float64) float64 { return math.Mod(off-u+10*T, T) }
	for i := range n {
		id := fmt.Sprintf("r%05d", i)
		u, service := rng.Float64()*T, 30*math.Exp(0.5*rng.NormFloat64())
		a[id], b[id] = wait(u, 0)+service, wait(u, phase)+service
	}
	return a, b
}

// Two step loops at different phases are no different to a latency objective: the verdict
// must not claim one slower, although the per-request differences lean one way (the Wilcoxon
// test rejects) and their median stands at the phase in nearly every seed: a verdict on that
// median, as this one was before, claims B slower in all of them.
func TestPairedStepPhaseNoClaim(t *testing.T) {
	claims, leaning := 0, 0
	const seeds, T, phase = 30, 15.0, 2.0
	for seed := uint64(1); seed <= seeds; seed++ {
		a, b := stepLoopRuns(seed, 300, T, phase)
		p := Paired("ttft", a, b, PairedOptions{Seed: seed, Confidence: 0.99})
		if p.Direction != PairedSame {
			claims++
			t.Logf("seed %d: %s", seed, p.Verdict)
		}
		if p.WilcoxonP < 0.01 && math.Abs(p.TypicalDiff-phase) < 0.5 {
			leaning++
		}
	}
	t.Logf("claims %d of %d; differences leaning (Wilcoxon p < 0.01, their median at the phase, %g ms) in %d", claims, seeds, phase, leaning)
	if claims > 1 {
		t.Errorf("claimed a difference in %d of %d seeds", claims, seeds)
	}
	if leaning < seeds*9/10 {
		t.Errorf("the per-request differences leant in only %d of %d seeds: the case is not the one the test means", leaning, seeds)
	}
}

func TestPairedSlowerByFivePercent(t *testing.T) {
	a, b := pairedRuns(3, 300, 0.8, 1, 0)
	rng := rand.New(rand.NewPCG(4, 4))
	for id := range b {
		b[id] = a[id]*1.05 + rng.NormFloat64() // 1 ms of noise around a 5% slowdown
	}
	p := Paired("ttft", a, b, PairedOptions{})
	iv := p.MedianDiff
	if p.Direction != PairedSlower || !strings.HasPrefix(p.Verdict, "B slower: median ttft +") {
		t.Fatalf("verdict %q", p.Verdict)
	}
	if !(iv.Lo > 0 && iv.Lo <= iv.Delta && iv.Delta <= iv.Hi) || p.WilcoxonP > 1e-10 || p.N != 300 {
		t.Errorf("median diff %+v, p %g, n %d", iv, p.WilcoxonP, p.N)
	}
	// B is 5% slower with 1 ms of noise: barely any request is 10% slower.
	if p.SlowerShare > 0.05 || p.SlowerThan != "+10%" {
		t.Errorf("slower share %v than %s", p.SlowerShare, p.SlowerThan)
	}
	t.Log(p.Verdict)

	// Swapped, B is faster by the same amount.
	q := Paired("ttft", b, a, PairedOptions{})
	if q.Direction != PairedFaster || q.MedianDiff.Hi >= 0 {
		t.Errorf("swapped: %s", q.Verdict)
	}
	// Reproducible: the same seed gives the same intervals.
	if r := Paired("ttft", a, b, PairedOptions{}); r != p {
		t.Errorf("not reproducible:\n%+v\n%+v", r, p)
	}
}

// detects reports whether a test finds B slower in at least 9 of 10 seeds at n requests.
func detects(n int, slower func(seed uint64, a, b map[string]float64) bool) bool {
	hits := 0
	for seed := uint64(1); seed <= 10; seed++ {
		a, b := pairedRuns(1000+seed, n, 0.8, 1.05, 0.02)
		if slower(seed, a, b) {
			hits++
		}
	}
	return hits >= 9
}

// smallestN is the first size at which the test detects the slowdown, 0 if none does.
func smallestN(sizes []int, slower func(seed uint64, a, b map[string]float64) bool) int {
	for _, n := range sizes {
		if detects(n, slower) {
			return n
		}
	}
	return 0
}

// unpairedSlower is compare.go's bootstrap of a quantile's difference, each run resampled on
// its own, as compare.Distributions does for p95 TTFT.
func unpairedSlower(q float64) func(seed uint64, a, b map[string]float64) bool {
	return func(seed uint64, a, b map[string]float64) bool {
		xa, xb := slices.Sorted(mapValues(a)), slices.Sorted(mapValues(b))
		rng := rand.New(rand.NewPCG(seed, 0xc0ffee))
		return BootstrapDiff(rng, xa, xb, q, 2000, 0.95).Lo > 0
	}
}

func mapValues(m map[string]float64) func(func(float64) bool) {
	return func(yield func(float64) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
}

// The point of pairing: per-request TTFTs vary a lot (lognormal, sigma 0.8) but B's is A's ×
// 1.05 × (1 + N(0, 0.02)). Resampling the runs apart sees the 5% shift through all of that
// variation; differencing per request removes it.
func TestPairedNeedsFewerRequestsThanUnpaired(t *testing.T) {
	sizes := []int{25, 50, 100, 200, 400, 800, 1600}
	paired := smallestN(sizes, func(seed uint64, a, b map[string]float64) bool {
		return Paired("ttft", a, b, PairedOptions{Seed: seed}).Direction == PairedSlower
	})
	// Beyond the list, only to say how many the unpaired test needs (it is O(1) per resample).
	more := slices.Concat(sizes, []int{3200, 6400, 12800, 25600})
	median, p95 := smallestN(more, unpairedSlower(0.5)), smallestN(more, unpairedSlower(0.95))
	t.Logf("smallest n detecting a 5%% TTFT slowdown in >= 9 of 10 seeds: paired %d, unpaired median %d, unpaired p95 %d (0: not by %d)",
		paired, median, p95, more[len(more)-1])
	if paired == 0 {
		t.Fatalf("paired test did not detect the slowdown by n = %d", sizes[len(sizes)-1])
	}
	if median != 0 && paired >= median {
		t.Errorf("paired needs %d requests, unpaired %d", paired, median)
	}
}

func TestPairedEdgeCases(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name string
		a, b map[string]float64
		n    int
	}{
		{"empty", nil, nil, 0},
		{"disjoint", map[string]float64{"x": 1}, map[string]float64{"y": 2}, 0},
		{"non-finite", map[string]float64{"x": nan, "y": inf, "z": 1, "w": -math.MaxFloat64},
			map[string]float64{"x": 1, "y": 1, "z": inf, "w": math.MaxFloat64}, 0},
		{"one", map[string]float64{"x": 1}, map[string]float64{"x": 2}, 1},
		{"equal", map[string]float64{"x": 1, "y": 2, "z": 3}, map[string]float64{"x": 1, "y": 2, "z": 3}, 3},
	}
	for _, c := range cases {
		p := Paired("ttft", c.a, c.b, PairedOptions{Resamples: 50, Confidence: 7, SlowerBy: nan, SlowerByMS: inf})
		if p.N != c.n || p.Direction != PairedSame {
			t.Errorf("%s: %+v", c.name, p)
		}
		if _, err := json.Marshal(p); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	// Five pairs all slower are not enough: the exact Wilcoxon p is 2/32, although the
	// bootstrap interval of the median excludes zero.
	a := map[string]float64{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}
	b := map[string]float64{"a": 2, "b": 4, "c": 6, "d": 8, "e": 10}
	if p := Paired("ttft", a, b, PairedOptions{}); p.Direction != PairedSame || p.WilcoxonP != 0.0625 || !p.MedianDiff.Excludes0() {
		t.Errorf("five pairs: %+v", p)
	}
	a["f"], b["f"] = 6, 12
	if p := Paired("ttft", a, b, PairedOptions{SlowerByMS: 3}); p.Direction != PairedSlower || p.WilcoxonP != 0.03125 ||
		p.SlowerShare != 0.5 || p.SlowerThan != "+3ms" {
		t.Errorf("six pairs: %+v", p)
	}
}

func TestPairedP95Interval(t *testing.T) {
	// The p95 interval over resampled pairs covers the p95 difference and excludes zero for a
	// uniform +10 ms shift; literal resampling would give the same distribution.
	a, b := pairedRuns(9, 400, 0.8, 1, 0)
	for id := range b {
		b[id] = a[id] + 10
	}
	p := Paired("e2e", a, b, PairedOptions{})
	if math.Abs(p.P95Diff.Delta-10) > 1e-9 || !(p.P95Diff.Lo <= 10 && p.P95Diff.Hi >= 10) {
		t.Errorf("p95 diff %+v", p.P95Diff)
	}
	if math.Abs(p.MedianDiff.Delta-10) > 1e-9 || p.MedianDiff.Lo < 9.999 || p.MedianDiff.Hi > 10.001 {
		t.Errorf("median diff %+v", p.MedianDiff)
	}
	if !strings.Contains(p.Verdict, "p95 +10 ms") {
		t.Errorf("verdict %q", p.Verdict)
	}
}
