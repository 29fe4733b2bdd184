package analysis

import (
	"math"
	"math/rand/v2"
	"sort"
)

// medianDiffInterval is the percentile-bootstrap interval of the median difference, d sorted
// ascending. Resampling pairs resamples their differences, and the median of n differences
// drawn with replacement is one Beta draw away (bootstrapQuantile), so this costs
// O(resamples), not O(resamples × n).
func medianDiffInterval(rng *rand.Rand, d []float64, resamples int, conf float64) Interval {
	reps := make([]float64, resamples)
	for i := range reps {
		reps[i] = bootstrapQuantile(rng, d, 0.5)
	}
	lo, hi := percentileBounds(reps, conf)
	return Interval{Delta: quantileSorted(d, 0.5), Lo: lo, Hi: hi}
}

// p95DiffInterval is the percentile-bootstrap interval of p95(B) - p95(A) over resampled
// pairs: a request drawn k times counts k times in both runs, so the runs' shared
// request-to-request variation cancels, which is what makes it narrower than resampling each
// run on its own. A resample is a count per pair (how often it was drawn); each run's p95 is
// then found by walking that run's values from the top, O(n) per resample with no sorting.
func p95DiffInterval(rng *rand.Rand, a, b []float64, resamples int, conf float64) Interval {
	n := len(a)
	fromTop := n - nearestRank(0.95, n) // the p95's rank counted from the largest, 1-based
	orderA, orderB := descendingOrder(a), descendingOrder(b)
	counts := make([]int32, n)
	reps := make([]float64, resamples)
	for r := range reps {
		clear(counts)
		for range n {
			counts[rng.IntN(n)]++
		}
		reps[r] = rankFromTop(b, orderB, counts, fromTop) - rankFromTop(a, orderA, counts, fromTop)
	}
	lo, hi := percentileBounds(reps, conf)
	return Interval{Delta: nearestTop(b, orderB, fromTop) - nearestTop(a, orderA, fromTop), Lo: lo, Hi: hi}
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
// bootstrapDiff takes them. reps is sorted in place.
func percentileBounds(reps []float64, conf float64) (lo, hi float64) {
	sort.Float64s(reps)
	n := len(reps)
	alpha := (1 - conf) / 2
	l := int(math.Floor(alpha * float64(n)))
	h := int(math.Ceil((1-alpha)*float64(n))) - 1
	h = max(l, min(h, n-1))
	return reps[l], reps[h]
}
