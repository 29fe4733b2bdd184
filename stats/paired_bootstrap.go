package stats

import (
	"math"
	"math/rand/v2"
	"sort"
)

// quantileDiffIntervals are the percentile-bootstrap intervals of median(B) - median(A) and of
// p95(B) - p95(A) over resampled pairs: a request drawn k times counts k times in both runs,
// so the runs' shared request-to-request variation cancels, which is what makes them narrower
// than resampling each run on its own. Both come from the same resamples. A resample is a count
// per pair (how often it was drawn); each run's quantile is then found by walking that run's
// values from the top, O(n) per resample with no sorting.
//
// The effect is the difference of the runs' quantiles, not the median of the per-request
// differences: two servers with equal latency distributions can still differ request by
// request in a skewed way. Two step-loop engines whose steps stand at different phases are
// the case measured here: for arrivals spread over a step of length T with B's boundaries φ
// after A's, B - A is φ for a share 1 - φ/T of requests and φ - T for the rest, mean zero but
// median φ, and a paired test of that median claims a difference in many runs of one
// configuration against itself. A latency objective is about each run's own quantiles, which
// those two runs share.
func quantileDiffIntervals(rng *rand.Rand, a, b []float64, resamples int, conf float64) (median, p95 Interval) {
	n := len(a)
	orderA, orderB := descendingOrder(a), descendingOrder(b)
	ranks := [2]int{n - NearestRank(0.5, n), n - NearestRank(0.95, n)} // from the largest, 1-based
	counts := make([]int32, n)
	reps := [2][]float64{make([]float64, resamples), make([]float64, resamples)}
	for r := range resamples {
		clear(counts)
		for range n {
			counts[rng.IntN(n)]++
		}
		for q, rank := range ranks {
			reps[q][r] = rankFromTop(b, orderB, counts, rank) - rankFromTop(a, orderA, counts, rank)
		}
	}
	var out [2]Interval
	for q, rank := range ranks {
		lo, hi := percentileBounds(reps[q], conf)
		out[q] = Interval{Delta: nearestTop(b, orderB, rank) - nearestTop(a, orderA, rank), Lo: lo, Hi: hi}
	}
	return out[0], out[1]
}

// descendingOrder is the indices of x from its largest value down.
func descendingOrder(x []float64) []int {
	order := make([]int, len(x))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return x[order[i]] > x[order[j]] })
	return order
}

// rankFromTop is the value of rank r (1-based, from the largest) in the resample that holds
// x[i] counts[i] times.
func rankFromTop(x []float64, order []int, counts []int32, r int) float64 {
	cum := 0
	for _, i := range order {
		cum += int(counts[i])
		if cum >= r {
			return x[i]
		}
	}
	return x[order[len(order)-1]]
}

// nearestTop is the value of rank r from the largest in x itself.
func nearestTop(x []float64, order []int, r int) float64 { return x[order[r-1]] }

// percentileBounds are the (1-conf)/2 and (1+conf)/2 percentiles of bootstrap replicates, as
// BootstrapDiff takes them. reps is sorted in place.
func percentileBounds(reps []float64, conf float64) (lo, hi float64) {
	sort.Float64s(reps)
	n := len(reps)
	alpha := (1 - conf) / 2
	l := int(math.Floor(alpha * float64(n)))
	h := int(math.Ceil((1-alpha)*float64(n))) - 1
	h = max(l, min(h, n-1))
	return reps[l], reps[h]
}
