package stats

import (
	"math"
	"testing"
)

func TestWilcoxonSignedRank(t *testing.T) {
	for _, c := range []struct {
		name  string
		d     []float64
		wPlus float64
		p     float64
		tol   float64
	}{
		// Darwin's Zea mays, cross- minus self-fertilised plant heights (eighths of an inch),
		// from Fisher, The Design of Experiments (1935), §17, and the scipy.stats.wilcoxon
		// docs: 15 untied differences, W- = 10 + 14 = 24, so W+ = 120 - 24 = 96. Exactly,
		// 676 of the 2^15 sign patterns have W+ <= 24: p = 2 × 676/32768 = 0.041259765625,
		// the value scipy prints for wilcoxon(d).
		{"fisher exact", []float64{6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75}, 96, 0.041259765625, 1e-15},
		// 1..60 with every third difference negative: no ties, n > 50, so the normal
		// approximation. W+ = 1830 - 3(1+...+20) = 1200; mean 60·61/4 = 915; variance
		// 60·61·121/24 = 18452.5, sd 135.840; z = 285/135.840 = 2.09806;
		// p = erfc(z/√2) = 0.0359001 (scipy wilcoxon(d, method="approx")).
		{"normal no ties", signsEveryThird(60), 1200, 0.03590012321587814, 1e-12},
		// Ties and zeros: d = 0 2 -2 3 3 3 -1 5 7 0 4 6. The zeros are dropped (n = 10);
		// |d| ranks 1 →1, 2 2 →2.5, 3 3 3 →5, 4 →7, 5 →8, 6 →9, 7 →10. W+ = 2.5 + 15 + 8 + 10 +
		// 7 + 9 = 51.5. Ties force the normal approximation: mean 27.5, variance 10·11·21/24 -
		// ((2³-2) + (3³-3))/48 = 96.25 - 0.625 = 95.625; z = 24/9.77880 = 2.45429;
		// p = 0.0141164 (scipy's, zero_method "wilcox", no continuity correction).
		{"ties and zeros", []float64{0, 2, -2, 3, 3, 3, -1, 5, 7, 0, 4, 6}, 51.5, 0.014116388749862407, 1e-12},
		// Six positive differences: the smallest exact p, 2/2^6.
		{"six positive", []float64{1, 2, 3, 4, 5, 6}, 21, 0.03125, 0},
		{"balanced", []float64{1, -1, 2, -2}, 5, 1, 1e-12},
		{"all zero", []float64{0, 0, 0}, 0, 1, 0},
		{"empty", nil, 0, 1, 0},
	} {
		w, p := SignedRank(c.d)
		if w != c.wPlus || math.Abs(p-c.p) > c.tol {
			t.Errorf("%s: W+ %v p %.17g, want %v %.17g", c.name, w, p, c.wPlus, c.p)
		}
	}
}

func signsEveryThird(n int) []float64 {
	d := make([]float64, n)
	for i := range d {
		d[i] = float64(i + 1)
		if (i+1)%3 == 0 {
			d[i] = -d[i]
		}
	}
	return d
}

// The exact distribution sums to 1 and is symmetric: p(W+ = w) = p(W+ = n(n+1)/2 - w).
func TestWilcoxonExactSymmetric(t *testing.T) {
	for _, n := range []int{1, 2, 7, 20, 50} {
		top := n * (n + 1) / 2
		for _, w := range []int{0, top / 3, top / 2, top} {
			if a, b := signedRankExactP(n, w), signedRankExactP(n, top-w); a != b || !(a > 0 && a <= 1) {
				t.Errorf("n %d w %d: p %v, mirrored %v", n, w, a, b)
			}
		}
	}
}
