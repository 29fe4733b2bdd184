package prefixcache

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
)

// denseGrid is every capacity 1..2000 (up to one past the distinct block count: from there on
// every capacity is the infinite one), some large ones around that count, and 0 (infinite).
func denseGrid(distinct int) []int {
	var caps []int
	for c := 1; c <= min(2000, distinct+1); c++ {
		caps = append(caps, c)
	}
	return append(caps, 0, 3000, 5000, 10000, distinct-1, distinct, distinct+1, 1<<30)
}

// checkCurve fails unless a curve over reqs counts, at every capacity, what HitRate counts.
func checkCurve(t *testing.T, c *Curve, reqs [][]uint64, caps []int) {
	t.Helper()
	for _, r := range reqs {
		c.Add(r)
	}
	points := c.Points(caps)
	wants := hitRates(reqs, caps)
	bad := 0
	for i, capacity := range caps {
		want := wants[i]
		if got := c.At(capacity); got != want || points[i].Result != want || points[i].CapacityBlocks != max(capacity, 0) {
			t.Errorf("capacity %d: At %+v, Points %+v, HitRate %+v", capacity, got, points[i], want)
			if bad++; bad == 5 {
				t.FailNow()
			}
		}
	}
}

// hitRates is HitRate at each capacity, the simulations spread over the CPUs.
func hitRates(reqs [][]uint64, caps []int) []Result {
	out := make([]Result, len(caps))
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(caps); i += workers {
				out[i] = HitRate(reqs, caps[i])
			}
		})
	}
	wg.Wait()
	return out
}

// chains are seeded requests with shared prefixes: a prefix of an earlier request (often a
// recent one, so that small caches hit too; at most 40 blocks of it, so that chains do not grow
// without end) and new blocks after it.
func chains(seed uint64, n int) [][]uint64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	var reqs [][]uint64
	next := uint64(1)
	for range n {
		var h []uint64
		if len(reqs) > 0 && rng.IntN(4) > 0 {
			back := min(len(reqs), 1+rng.IntN(1+rng.IntN(len(reqs))))
			p := reqs[len(reqs)-back]
			if len(p) > 0 {
				h = append(h, p[:1+rng.IntN(min(len(p), 40))]...)
			}
		}
		for k := rng.IntN(8); k >= 0; k-- {
			h = append(h, next)
			next++
		}
		reqs = append(reqs, h)
	}
	return reqs
}

// messy are requests of a few hashes in any order: repeats within a request, blocks seen
// before behind a miss, empty requests; nothing a hash chain would give, all of which Cache
// has its rules for.
func messy(seed uint64, n, alphabet int) [][]uint64 {
	rng := rand.New(rand.NewPCG(seed, 2))
	reqs := make([][]uint64, n)
	for i := range reqs {
		for k := rng.IntN(12); k > 0; k-- {
			reqs[i] = append(reqs[i], uint64(rng.IntN(alphabet)))
		}
	}
	return reqs
}

func distinct(reqs [][]uint64) int {
	seen := map[uint64]bool{}
	for _, r := range reqs {
		for _, h := range r {
			seen[h] = true
		}
	}
	return len(seen)
}

func TestCurveEqualsLRUChains(t *testing.T) {
	for seed := range uint64(2) {
		reqs := chains(seed, 1000)
		checkCurve(t, NewCurve(), reqs, denseGrid(distinct(reqs)))
	}
}

func TestCurveEqualsLRUMessy(t *testing.T) {
	for seed, alphabet := range []int{3, 20, 300} {
		reqs := messy(uint64(seed), 3000, alphabet)
		checkCurve(t, NewCurve(), reqs, denseGrid(distinct(reqs)))
	}
}

// TestCurveCompaction packs the time window every few touches: the depths must survive it.
func TestCurveCompaction(t *testing.T) {
	for _, w := range []int{1, 2, 7, 64} {
		reqs := chains(uint64(w), 500)
		checkCurve(t, newCurve(w), reqs, denseGrid(distinct(reqs))[:300])
		reqs = messy(uint64(w), 500, 30)
		checkCurve(t, newCurve(w), reqs, denseGrid(distinct(reqs))[:40])
	}
}

// TestCurveSmall spells out Cache's rules on a few requests.
func TestCurveSmall(t *testing.T) {
	c := NewCurve()
	for _, r := range [][]uint64{{1, 2, 3}, {4}, {1, 2, 3}, {9, 2}, {5, 5}, {5, 5}} {
		c.Add(r)
	}
	// Capacity 3 after {1,2,3},{4}: 3 was evicted (a prefix's tail goes first), 1 and 2 hit.
	// {9,2}: 2 is behind a miss. {5,5}: a request's repeat does not hit itself; the next does.
	want := map[int]int64{1: 2, 2: 3, 3: 4, 4: 5, 0: 5}
	for capacity, hits := range want {
		if got := c.At(capacity); got.Hits != hits || got.Blocks != 13 {
			t.Errorf("capacity %d: %+v, want %d hits of 13", capacity, got, hits)
		}
	}
	if c.Distinct() != 6 || c.Err() != nil {
		t.Errorf("distinct %d, err %v", c.Distinct(), c.Err())
	}
	if got := NewCurve().At(10); got != (Result{}) {
		t.Errorf("empty curve: %+v", got)
	}
}

// TestCurvePoints: Points keeps the order asked for, negative means infinite as in New.
func TestCurvePoints(t *testing.T) {
	reqs := chains(9, 300)
	c := NewCurve()
	for _, r := range reqs {
		c.Add(r)
	}
	caps := []int{500, 0, 3, -2, 3, 1 << 40, 1}
	got := c.Points(caps)
	for i, p := range got {
		if want := HitRate(reqs, caps[i]); p.Result != want || p.CapacityBlocks != max(caps[i], 0) {
			t.Errorf("point %d (capacity %d): %+v, want %+v", i, caps[i], p, want)
		}
	}
	if !slices.Equal(c.Points(nil), []Point{}) {
		t.Error("no capacities: want no points")
	}
}

// TestCurveLimit: past maxDistinct the curve stops, says so, and holds what came before.
func TestCurveLimit(t *testing.T) {
	defer func(n int) { maxDistinct = n }(maxDistinct)
	maxDistinct = 5
	c := NewCurve()
	reqs := [][]uint64{{1, 2}, {1, 2, 3}, {4, 5, 6}, {1}}
	for _, r := range reqs {
		c.Add(r)
	}
	if c.Err() == nil || c.At(0) != HitRate(reqs[:2], 0) {
		t.Fatalf("err %v, %+v", c.Err(), c.At(0))
	}
}

// TestFenwickRanks: the rank table is the packed position of each marked slot.
func TestFenwickRanks(t *testing.T) {
	var f fenwick
	f.reset(13, 0)
	marked := []int{0, 3, 4, 9, 12}
	for _, s := range marked {
		f.mark(s)
	}
	f.unmark(4)
	f.mark(4)
	if f.before(10) != 4 || f.before(0) != 0 || f.before(13) != 5 {
		t.Fatalf("before: %d %d %d", f.before(10), f.before(0), f.before(13))
	}
	f.ranks()
	for i, s := range marked {
		if f.rank(s) != i {
			t.Errorf("slot %d: rank %d, want %d", s, f.rank(s), i)
		}
	}
	f.reset(20, 6)
	for i := 0; i <= 20; i++ {
		if f.before(i) != min(i, 6) {
			t.Errorf("after reset: before(%d) = %d", i, f.before(i))
		}
	}
}
