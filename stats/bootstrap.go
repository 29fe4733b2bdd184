package stats

import (
	"math"
	"math/rand/v2"
	"sort"
)

// bootstrapQuantile draws one bootstrap replicate of the nearest-rank q-quantile of the
// ascending sample x: the quantile of n values drawn from x with replacement.
//
// It costs O(1), not O(n): draw n uniforms V, take index floor(V*n); the k-th smallest index is
// floor(V_(k)*n) because floor is monotone, and the k-th order statistic of n uniforms is
// Beta(k, n-k+1) distributed. So one Beta draw gives exactly the resampled quantile's index.
// (TestBootstrapQuantileMatchesResampling checks this against literal resampling.)
func bootstrapQuantile(rng *rand.Rand, x []float64, q float64) float64 {
	n := len(x)
	k := NearestRank(q, n) + 1
	u := betaRand(rng, float64(k), float64(n-k+1))
	i := int(u * float64(n))
	if i >= n {
		i = n - 1
	}
	return x[i]
}

// betaRand draws Beta(a, b) for a, b >= 1 as X/(X+Y) with X, Y Gamma distributed.
func betaRand(rng *rand.Rand, a, b float64) float64 {
	x := gammaRand(rng, a)
	y := gammaRand(rng, b)
	return x / (x + y)
}

// gammaRand draws Gamma(shape, 1) for shape >= 1 (Marsaglia and Tsang, 2000).
func gammaRand(rng *rand.Rand, shape float64) float64 {
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		var x, v float64
		for {
			x = rng.NormFloat64()
			v = 1 + c*x
			if v > 0 {
				break
			}
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x {
			return d * v
		}
		if math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// Interval is a difference (B - A) with its bootstrap confidence interval.
type Interval struct {
	Delta float64 `json:"delta"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
}

// Excludes0 reports whether the interval lies entirely on one side of zero.
func (iv Interval) Excludes0() bool { return iv.Lo > 0 || iv.Hi < 0 }

// BootstrapDiff is the percentile-bootstrap interval of quantile(b) - quantile(a), resampling
// each (ascending) sample independently. conf is e.g. 0.95.
func BootstrapDiff(rng *rand.Rand, a, b []float64, q float64, resamples int, conf float64) Interval {
	iv := Interval{Delta: QuantileSorted(b, q) - QuantileSorted(a, q)}
	if len(a) == 0 || len(b) == 0 || resamples < 1 {
		iv.Lo, iv.Hi = math.Inf(-1), math.Inf(1)
		return iv
	}
	d := make([]float64, resamples)
	for i := range d {
		d[i] = bootstrapQuantile(rng, b, q) - bootstrapQuantile(rng, a, q)
	}
	sort.Float64s(d)
	alpha := (1 - conf) / 2
	lo := int(math.Floor(alpha * float64(resamples)))
	hi := int(math.Ceil((1-alpha)*float64(resamples))) - 1
	hi = max(lo, min(hi, resamples-1))
	iv.Lo, iv.Hi = d[lo], d[hi]
	return iv
}
