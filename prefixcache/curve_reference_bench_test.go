package prefixcache

import (
	"testing"
	"time"
)

// referenceCapacities are the capacities BenchmarkCurveVsLRU10M asks of both: from a cache far
// smaller than the working set to one that holds most of it.
var referenceCapacities = []int{1_000, 10_000, 100_000, 1_000_000}

// BenchmarkCurveVsLRU10M is the cache curve's figure with its reference in the same
// invocation: one Curve pass over the 10M generated requests, then one Cache (per-capacity
// LRU) pass over the same requests for each of referenceCapacities, each timed on its own
// with the same generator, so the ratio is taken on one machine at one moment. It fails if
// any capacity's counts differ, so the two sides did the same work.
//
// Reports: curve-s (the one pass), lru-s (all the per-capacity passes), lru-s/capacity and
// x-faster (lru-s / curve-s: what answering these capacities one pass each would cost more).
func BenchmarkCurveVsLRU10M(b *testing.B) { benchCurveVsLRU(b, 10_000_000) }

// BenchmarkCurveVsLRU100k is the same at 100k requests: a quick look, not the record.
func BenchmarkCurveVsLRU100k(b *testing.B) { benchCurveVsLRU(b, 100_000) }

func benchCurveVsLRU(b *testing.B, n int) {
	for range b.N {
		start := time.Now()
		w := newWorkload(1)
		c := NewCurve()
		for range n {
			c.Add(w.request())
		}
		curveTime := time.Since(start)
		want := c.Points(referenceCapacities)
		var lruTime time.Duration
		for i, capacity := range referenceCapacities {
			start := time.Now()
			w := newWorkload(1)
			lru := New(capacity)
			for range n {
				lru.Add(w.request())
			}
			lruTime += time.Since(start)
			if got := lru.Result(); got != want[i].Result {
				b.Fatalf("capacity %d: LRU %+v, curve %+v", capacity, got, want[i].Result)
			}
		}
		b.ReportMetric(curveTime.Seconds(), "curve-s")
		b.ReportMetric(lruTime.Seconds(), "lru-s")
		b.ReportMetric(lruTime.Seconds()/float64(len(referenceCapacities)), "lru-s/capacity")
		b.ReportMetric(lruTime.Seconds()/curveTime.Seconds(), "x-faster")
	}
}
