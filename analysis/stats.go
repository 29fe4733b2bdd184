package analysis

import (
	"math"
	"math/rand/v2"
	"sort"
)

// quantileSorted is the nearest-rank q-quantile (0..1) of an ascending sample; 0 if empty.
func quantileSorted(x []float64, q float64) float64 {
	if len(x) == 0 {
		return 0
	}
	return x[nearestRank(q, len(x))]
}

// bootstrapQuantile draws one bootstrap replicate of the nearest-rank q-quantile of the
// ascending sample x: the quantile of n values drawn from x with replacement.
//
// It costs O(1), not O(n): draw n uniforms V, take index floor(V*n); the k-th smallest index is
// floor(V_(k)*n) because floor is monotone, and the k-th order statistic of n uniforms is
// Beta(k, n-k+1) distributed. So one Beta draw gives exactly the resampled quantile's index.
// (TestBootstrapQuantileMatchesResampling checks this against literal resampling.)
func bootstrapQuantile(rng *rand.Rand, x []float64, q float64) float64 {
	n := len(x)
	k := nearestRank(q, n) + 1
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

// bootstrapDiff is the percentile-bootstrap interval of quantile(b) - quantile(a), resampling
// each (ascending) sample independently. conf is e.g. 0.95.
func bootstrapDiff(rng *rand.Rand, a, b []float64, q float64, resamples int, conf float64) Interval {
	iv := Interval{Delta: quantileSorted(b, q) - quantileSorted(a, q)}
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

// MannWhitney is the Mann-Whitney U test of two samples (normal approximation with tie and
// continuity corrections): does one tend to be larger than the other?
type MannWhitney struct {
	// U counts the pairs (a, b) with b > a, ties counting one half.
	U float64 `json:"u"`
	// ProbBGreater is U / (na*nb): the chance a random B value exceeds a random A value.
	ProbBGreater float64 `json:"prob_b_greater"`
	Z            float64 `json:"z"`
	// P is the two-sided p-value.
	P float64 `json:"p"`
}

// mannWhitney runs the test; a and b need not be sorted. Either sample empty gives P = 1.
func mannWhitney(a, b []float64) MannWhitney {
	na, nb := len(a), len(b)
	if na == 0 || nb == 0 {
		return MannWhitney{P: 1, ProbBGreater: 0.5}
	}
	type obs struct {
		v   float64
		inB bool
	}
	all := make([]obs, 0, na+nb)
	for _, v := range a {
		all = append(all, obs{v, false})
	}
	for _, v := range b {
		all = append(all, obs{v, true})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v < all[j].v })
	n := float64(na + nb)
	var rankB, tieSum float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		avg := float64(i+j+1) / 2 // ranks i+1..j averaged
		for k := i; k < j; k++ {
			if all[k].inB {
				rankB += avg
			}
		}
		t := float64(j - i)
		tieSum += t*t*t - t
		i = j
	}
	fa, fb := float64(na), float64(nb)
	u := rankB - fb*(fb+1)/2
	mean := fa * fb / 2
	sigma := math.Sqrt(fa * fb / 12 * ((n + 1) - tieSum/(n*(n-1))))
	mw := MannWhitney{U: u, ProbBGreater: u / (fa * fb), P: 1}
	if sigma > 0 {
		diff := u - mean
		// Continuity correction toward the mean.
		switch {
		case diff > 0.5:
			diff -= 0.5
		case diff < -0.5:
			diff += 0.5
		default:
			diff = 0
		}
		mw.Z = diff / sigma
		mw.P = math.Erfc(math.Abs(mw.Z) / math.Sqrt2)
	}
	return mw
}
