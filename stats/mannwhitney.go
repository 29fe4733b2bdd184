package stats

import (
	"math"
	"sort"
)

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

// MannWhitneyU runs the test; a and b need not be sorted. Either sample empty gives P = 1.
func MannWhitneyU(a, b []float64) MannWhitney {
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
