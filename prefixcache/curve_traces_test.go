package prefixcache_test

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/llm-replay/replay/gen"
	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/prefixcache"
	"github.com/llm-replay/replay/trace"
)

// Traces from outside the package: the generator's (gen imports prefixcache, hence this
// external test package) and the public Mooncake trace.

// equalOnTrace fails unless the curve over recs' hashes counts, at every capacity of caps,
// what prefixcache.HitRate counts.
func equalOnTrace(t *testing.T, recs []trace.Record, caps []int) {
	t.Helper()
	reqs := make([][]uint64, len(recs))
	c := prefixcache.NewCurve()
	for i, r := range recs {
		reqs[i] = r.BlockHashes
		c.Add(r.BlockHashes)
	}
	if c.At(0).Hits == 0 || c.At(1).Hits == c.At(0).Hits {
		t.Fatalf("a trace whose curve is flat proves little: %+v at 1, %+v infinite", c.At(1), c.At(0))
	}
	want := hitRates(reqs, caps)
	points := c.Points(caps)
	for i, capacity := range caps {
		if points[i].Result != want[i] {
			t.Fatalf("capacity %d: curve %+v, HitRate %+v", capacity, points[i].Result, want[i])
		}
	}
}

// hitRates is prefixcache.HitRate at each capacity, spread over the CPUs.
func hitRates(reqs [][]uint64, caps []int) []prefixcache.Result {
	out := make([]prefixcache.Result, len(caps))
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(caps); i += workers {
				out[i] = prefixcache.HitRate(reqs, caps[i])
			}
		})
	}
	wg.Wait()
	return out
}

// grid is every capacity 1..dense, every step-th one up to limit, and 0 (infinite).
func grid(dense, step, limit int) []int {
	caps := []int{0}
	for c := 1; c <= limit; c++ {
		if c <= dense || c%step == 0 {
			caps = append(caps, c)
		}
	}
	return caps
}

// TestCurveEqualsLRUGenerated: the default generated trace, and a longer code one (bursts
// that share a file's prefix), at every capacity up to 2000 blocks and beyond their blocks.
func TestCurveEqualsLRUGenerated(t *testing.T) {
	for _, cfg := range []gen.Config{gen.Default(), {Shape: "code", Duration: 10 * time.Minute, Seed: 7}} {
		recs, err := gen.Records(cfg)
		if err != nil {
			t.Fatal(err)
		}
		equalOnTrace(t, recs, grid(2000, 50, 20000))
	}
}

// TestCurveEqualsLRUMooncake: the public Mooncake trace (skipped when the shared traces are
// absent): every capacity up to 300 blocks, every 7th up to 2000, every 997th up to past its
// 43,924 distinct blocks. Denser would be a simulation per capacity, 10 ms each, for little:
// the chain, messy and fuzz tests take every capacity.
func TestCurveEqualsLRUMooncake(t *testing.T) {
	recs, _, err := ingest.ReadAll(testenv.SharedTrace(t, "mooncake_synthetic.jsonl"), ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	caps := append(grid(300, 7, 2000), grid(0, 997, 60000)[1:]...)
	if testing.Short() {
		caps = grid(100, 997, 60000)
	}
	equalOnTrace(t, recs, caps)
}
