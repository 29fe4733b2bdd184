package prefixcache

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

// workload streams seeded requests with production-like prefix sharing, without holding the
// trace: a system prompt from a Zipf-popular pool, then either a new conversation or the next
// turn of a recent one (its previous prompt plus the answer and a new message). gen makes
// records a whole trace at a time, too much memory at 10M requests, hence this.
type workload struct {
	rng      *rand.Rand
	zipf     *rand.Zipf
	systems  [][]uint64
	sessions [][]uint64 // the live conversations' last prompts, a ring
	ring     int
	next     uint64
}

func newWorkload(seed uint64) *workload {
	rng := rand.New(rand.NewPCG(seed, 10))
	w := &workload{rng: rng, zipf: rand.NewZipf(rng, 1.2, 1, 255), sessions: make([][]uint64, 4096)}
	for range 256 {
		w.systems = append(w.systems, w.fresh(nil, 1+rng.IntN(8)))
	}
	return w
}

// fresh appends n never-seen blocks.
func (w *workload) fresh(dst []uint64, n int) []uint64 {
	for range n {
		w.next++
		dst = append(dst, w.next*0x9e3779b97f4a7c15) // spread, as real hashes are
	}
	return dst
}

// request is the next request's block hashes (valid until the next call).
func (w *workload) request() []uint64 {
	// 60% of requests are later turns, of a conversation picked toward the recent ones.
	if i := (w.ring - 1 - int(w.rng.ExpFloat64()*300)) & (len(w.sessions) - 1); w.rng.IntN(10) < 6 && w.sessions[i] != nil && len(w.sessions[i]) < 60 {
		w.sessions[i] = w.fresh(w.sessions[i], 1+w.rng.IntN(4))
		return w.sessions[i]
	}
	s := w.sessions[w.ring][:0]
	s = append(s, w.systems[w.zipf.Uint64()]...)
	s = w.fresh(s, 1+w.rng.IntN(8))
	w.sessions[w.ring] = s
	w.ring = (w.ring + 1) & (len(w.sessions) - 1)
	return s
}

// BenchmarkCurve10M runs 10M generated requests through one Curve and reports time per
// request and the heap the curve holds at the end (the generator's is a few MB).
func BenchmarkCurve10M(b *testing.B) {
	const n = 10_000_000
	for range b.N {
		w := newWorkload(1)
		c := NewCurve()
		var accesses int64
		for range n {
			r := w.request()
			accesses += int64(len(r))
			c.Add(r)
		}
		b.StopTimer()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*b.N), "ns/request")
		b.ReportMetric(float64(ms.HeapAlloc), "heap-bytes")
		b.ReportMetric(float64(ms.HeapAlloc)/float64(c.Distinct()), "bytes/distinct-block")
		b.ReportMetric(float64(accesses)/n, "blocks/request")
		b.ReportMetric(float64(c.Distinct()), "distinct-blocks")
		b.ReportMetric(100*c.At(0).Rate(), "%hit-infinite")
		b.ReportMetric(100*c.At(100_000).Rate(), "%hit-100k")
		runtime.KeepAlive(c)
		b.StartTimer()
	}
}

// TestWorkload: the benchmark's requests share prefixes as meant (an ideal hit rate between
// a third and nine tenths, blocks reused at every distance) and the curve holds on them too.
func TestWorkload(t *testing.T) {
	w := newWorkload(1)
	reqs := make([][]uint64, 20000)
	c := NewCurve()
	for i := range reqs {
		reqs[i] = append([]uint64(nil), w.request()...)
		c.Add(reqs[i])
	}
	if r := c.At(0).Rate(); r < 0.33 || r > 0.9 || c.At(100).Hits == 0 || c.At(10000).Hits == c.At(100).Hits {
		t.Errorf("hit rate %.2f infinite, %+v at 100 blocks, %+v at 10000", r, c.At(100), c.At(10000))
	}
	t.Logf("%.1f blocks per request; hit rate %.1f%% infinite, %.1f%% at 1000 blocks", float64(c.At(0).Blocks)/float64(len(reqs)), 100*c.At(0).Rate(), 100*c.At(1000).Rate())
	caps := []int{0, 1, 10, 100, 1000, 10000, 30000}
	want := hitRates(reqs, caps)
	for i, p := range c.Points(caps) {
		if p.Result != want[i] {
			t.Errorf("capacity %d: curve %+v, HitRate %+v", caps[i], p.Result, want[i])
		}
	}
}
