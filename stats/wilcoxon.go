package stats

import (
	"math"
	"sort"
)

// wilcoxonExactMax is the most non-zero differences for which the signed-rank p-value is
// computed exactly (as scipy.stats.wilcoxon does by default up to 50); beyond it, and whenever
// differences tie, the normal approximation is used.
const wilcoxonExactMax = 50

// SignedRank is the two-sided Wilcoxon signed-rank test of paired differences: are they
// centred on zero? Zero differences are dropped (Wilcoxon's own rule, scipy's default
// zero_method "wilcox"); tied absolute differences share their average rank. wPlus is the sum
// of the ranks of the positive differences. Without any non-zero difference p is 1.
func SignedRank(d []float64) (wPlus, p float64) {
	abs := make([]float64, 0, len(d))
	pos := make([]bool, 0, len(d))
	for _, v := range d {
		if v != 0 && !math.IsNaN(v) {
			abs = append(abs, math.Abs(v))
			pos = append(pos, v > 0)
		}
	}
	n := len(abs)
	if n == 0 {
		return 0, 1
	}
	ranks, tieSum := absRanks(abs)
	for i, r := range ranks {
		if pos[i] {
			wPlus += r
		}
	}
	if n <= wilcoxonExactMax && tieSum == 0 {
		return wPlus, signedRankExactP(n, int(wPlus))
	}
	return wPlus, signedRankNormalP(n, wPlus, tieSum)
}

// absRanks ranks the values (1 = smallest), ties averaged, and returns Σ(t³ - t) over the tie
// groups for the variance's tie correction.
func absRanks(x []float64) (ranks []float64, tieSum float64) {
	order := make([]int, len(x))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return x[order[i]] < x[order[j]] })
	ranks = make([]float64, len(x))
	for i := 0; i < len(order); {
		j := i
		for j < len(order) && x[order[j]] == x[order[i]] {
			j++
		}
		avg := float64(i+j+1) / 2 // ranks i+1..j averaged
		for k := i; k < j; k++ {
			ranks[order[k]] = avg
		}
		t := float64(j - i)
		tieSum += t*t*t - t
		i = j
	}
	return ranks, tieSum
}

// signedRankNormalP is the normal approximation: W+ has mean n(n+1)/4 and variance
// n(n+1)(2n+1)/24 - Σ(t³-t)/48 under the null. No continuity correction, as scipy's default.
func signedRankNormalP(n int, wPlus, tieSum float64) float64 {
	fn := float64(n)
	mean := fn * (fn + 1) / 4
	variance := fn*(fn+1)*(2*fn+1)/24 - tieSum/48
	if !(variance > 0) {
		return 1
	}
	z := (wPlus - mean) / math.Sqrt(variance)
	return math.Min(1, math.Erfc(math.Abs(z)/math.Sqrt2))
}

// signedRankExactP is the exact two-sided p-value of W+ = w with n untied ranks: under the
// null each rank's sign is a fair coin, so W+ is the sum of a uniformly random subset of
// 1..n. count[s] is how many subsets sum to s (at most 2^50, exact in a float64).
func signedRankExactP(n, w int) float64 {
	top := n * (n + 1) / 2
	count := make([]float64, top+1)
	count[0] = 1
	for k := 1; k <= n; k++ {
		for s := k * (k + 1) / 2; s >= k; s-- {
			count[s] += count[s-k]
		}
	}
	var below, above float64 // subsets with sum <= w and >= w
	for s, c := range count {
		if s <= w {
			below += c
		}
		if s >= w {
			above += c
		}
	}
	total := math.Ldexp(1, n)
	return math.Min(1, 2*math.Min(below, above)/total)
}
