package gen

import (
	"math"
	"math/rand/v2"
	"sort"
)

// logNormal is a length distribution given by its median and the sigma of its log, clamped to
// [min, max]: the fits in shapes.go are stated that way, since published traces give medians
// and upper percentiles (p90 = median x e^(1.2816 sigma)).
type logNormal struct {
	median, sigma float64
	min, max      int
}

func (d logNormal) draw(r *rand.Rand) int {
	return clamp(d.median*math.Exp(d.sigma*r.NormFloat64()), d.min, d.max)
}

// seconds draws a duration in seconds, unclamped but for min/max read as seconds.
func (d logNormal) seconds(r *rand.Rand) float64 {
	return d.median * math.Exp(d.sigma*r.NormFloat64())
}

func clamp(x float64, lo, hi int) int {
	if x < float64(lo) || math.IsNaN(x) {
		return lo
	}
	if x > float64(hi) {
		return hi
	}
	return int(math.Round(x))
}

// gammaGap draws a Gamma(shape, scale = mean/shape) inter-arrival gap with the given mean:
// its coefficient of variation is 1/sqrt(shape), so shape < 1 is burstier than Poisson.
func gammaGap(r *rand.Rand, shape, mean float64) float64 {
	return gammaUnit(r, shape) * mean / shape
}

// gammaUnit draws Gamma(shape, 1) by Marsaglia and Tsang (2000); shapes below 1 use their
// boost, Gamma(a) = Gamma(a+1) x U^(1/a).
func gammaUnit(r *rand.Rand, shape float64) float64 {
	if shape < 1 {
		u := 1 - r.Float64() // (0, 1]: the power of 0 would be a zero gap for ever
		return gammaUnit(r, shape+1) * math.Pow(u, 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// zipf picks index i of n with probability proportional to 1/(i+1)^s: a few hot items (system
// prompts, repositories, documents) and a long tail, the popularity shape of shared prefixes.
type zipf struct{ cum []float64 }

func newZipf(n int, s float64) zipf {
	z := zipf{cum: make([]float64, n)}
	total := 0.0
	for i := range n {
		total += math.Pow(float64(i+1), -s)
		z.cum[i] = total
	}
	for i := range z.cum {
		z.cum[i] /= total
	}
	return z
}

func (z zipf) pick(r *rand.Rand) int {
	return min(sort.SearchFloat64s(z.cum, r.Float64()), len(z.cum)-1)
}

// weighted picks index i with probability w[i]/sum(w).
func weighted(r *rand.Rand, w []float64) int {
	total := 0.0
	for _, x := range w {
		total += x
	}
	u := r.Float64() * total
	for i, x := range w {
		if u < x {
			return i
		}
		u -= x
	}
	return len(w) - 1
}
