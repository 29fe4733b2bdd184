package stats

import (
	"math"
	"sort"
)

// KSDistance is the two-sample Kolmogorov-Smirnov statistic: the largest vertical distance
// between the empirical CDFs of a and b (0 = same distribution of values, 1 = disjoint).
// It measures how far two samples' shapes differ, whatever their sizes (the bootstrap tests
// compare it with literal resampling). Either sample empty gives 0. The inputs are not modified.
func KSDistance(a, b []float64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	x := append([]float64(nil), a...)
	y := append([]float64(nil), b...)
	sort.Float64s(x)
	sort.Float64s(y)
	na, nb := float64(len(x)), float64(len(y))
	var i, j int
	var d float64
	for i < len(x) && j < len(y) {
		// Step past every copy of the smaller value in both samples, so ties move together.
		v := math.Min(x[i], y[j])
		for i < len(x) && x[i] <= v {
			i++
		}
		for j < len(y) && y[j] <= v {
			j++
		}
		if diff := math.Abs(float64(i)/na - float64(j)/nb); diff > d {
			d = diff
		}
	}
	return d
}
