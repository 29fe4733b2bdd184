package stats

import "math"

// QuantileSorted is the nearest-rank q-quantile (0..1) of an ascending sample; 0 if empty.
func QuantileSorted(x []float64, q float64) float64 {
	if len(x) == 0 {
		return 0
	}
	return x[NearestRank(q, len(x))]
}

// NearestRank is the 0-based index of the q-quantile in a sorted sample of n (n > 0), by the
// nearest-rank rule: the ceil(q*n)-th smallest.
func NearestRank(q float64, n int) int {
	// The epsilon absorbs float error such as 0.95*20 = 19.000000000000004.
	k := int(math.Ceil(q*float64(n) - 1e-9))
	if k < 1 {
		k = 1
	}
	if k > n {
		k = n
	}
	return k - 1
}
