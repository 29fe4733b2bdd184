package stats

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// The O(1) Beta shortcut must give the same replicate distribution as literal resampling.
func TestBootstrapQuantileMatchesResampling(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, 150)
	for i := range x {
		x[i] = math.Exp(rng.NormFloat64())
	}
	sort.Float64s(x)
	const reps = 20000
	for _, q := range []float64{0.5, 0.95} {
		fast := make([]float64, reps)
		slow := make([]float64, reps)
		buf := make([]float64, len(x))
		for i := 0; i < reps; i++ {
			fast[i] = bootstrapQuantile(rng, x, q)
			for j := range buf {
				buf[j] = x[rng.IntN(len(x))]
			}
			sort.Float64s(buf)
			slow[i] = QuantileSorted(buf, q)
		}
		// Two samples of 20,000 from one distribution: KS well under 0.02 (5% critical ~0.0136).
		if d := KSDistance(fast, slow); d > 0.02 {
			t.Errorf("q=%v: KS between shortcut and resampling replicates %.4f", q, d)
		}
	}
}

func TestBootstrapDiffIdenticalAndShifted(t *testing.T) {
	x := make([]float64, 400)
	y := make([]float64, 400)
	for i := range x {
		x[i] = float64(i)
		y[i] = float64(i) + 100
	}
	rng := rand.New(rand.NewPCG(1, 1))
	iv := BootstrapDiff(rng, x, x, 0.95, 2000, 0.95)
	if iv.Delta != 0 || iv.Excludes0() {
		t.Errorf("identical samples: %+v", iv)
	}
	iv = BootstrapDiff(rng, x, y, 0.95, 2000, 0.95)
	if iv.Delta != 100 || !(iv.Lo > 0 && iv.Lo <= 100 && iv.Hi >= 100) {
		t.Errorf("shifted by 100: %+v", iv)
	}
}

func TestMannWhitney(t *testing.T) {
	mw := MannWhitneyU([]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10})
	// U = 25 (every B above every A); mean 12.5, sigma sqrt(25*11/12) = 4.7871;
	// z = (12.5 - 0.5) / 4.7871 = 2.5067, two-sided p = 0.01219.
	if mw.U != 25 || mw.ProbBGreater != 1 {
		t.Errorf("U %v P(B>A) %v", mw.U, mw.ProbBGreater)
	}
	if math.Abs(mw.Z-2.5067) > 1e-3 || math.Abs(mw.P-0.01219) > 1e-4 {
		t.Errorf("z %v p %v", mw.Z, mw.P)
	}
	// Ties count one half: pairs (1,2) (1,3) (2,3) B above, (2,2) a tie: U = 3.5.
	if mw := MannWhitneyU([]float64{1, 2}, []float64{2, 3}); mw.U != 3.5 {
		t.Errorf("ties: U %v", mw.U)
	}
	if mw := MannWhitneyU([]float64{1, 2, 3}, []float64{3, 2, 1}); mw.P != 1 {
		t.Errorf("same sample: p %v", mw.P)
	}
}
