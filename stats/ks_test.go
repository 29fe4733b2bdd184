package stats

import (
	"math"
	"testing"
)

// TestKSDistance: 0 for the same values in any order, 1 for disjoint samples, the largest CDF
// gap otherwise.
func TestKSDistance(t *testing.T) {
	if d := KSDistance([]float64{1, 2, 3, 3}, []float64{3, 1, 3, 2}); d != 0 {
		t.Errorf("identical samples: %v", d)
	}
	if d := KSDistance([]float64{1, 2}, []float64{5, 6}); d != 1 {
		t.Errorf("disjoint samples: %v", d)
	}
	// F_a - F_b is 1/3 at 1, 2 and 3.
	if d := KSDistance([]float64{1, 2, 3}, []float64{2, 3, 4}); math.Abs(d-1.0/3) > 1e-9 {
		t.Errorf("shifted samples: %v, want 1/3", d)
	}
}
