package sweep

import (
	"math"
	"strings"
	"testing"
)

// TestCostAtKneeWorkedExample is the capacity-planning worked example: one A100 at $2 an hour
// serving 1,800 output tokens a second produces 6.48 M tokens an hour, so a million costs
// 2 / 6.48 = $0.3086, quoted as $0.31.
func TestCostAtKneeWorkedExample(t *testing.T) {
	c, err := CostAtKnee(2, 1, 1800)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c.PerMOutputTokens-0.3086) > 1e-9 {
		t.Errorf("$2/h at 1,800 tok/s: $%v per million, want $0.3086", c.PerMOutputTokens)
	}
	if got := c.String(); !strings.HasPrefix(got, "$0.31/M output tokens (1 GPU at $2.00/h, 1800 tok/s)") {
		t.Errorf("quoted as %q", got)
	}
	// Eight of them at the same throughput cost eight times as much.
	c8, err := CostAtKnee(2, 8, 1800)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c8.PerMOutputTokens-2.4691) > 1e-9 {
		t.Errorf("8 GPUs: $%v per million, want $2.4691", c8.PerMOutputTokens)
	}
}

func TestCostAtKneeRejects(t *testing.T) {
	for _, tc := range []struct {
		price float64
		gpus  int
		tokS  float64
		want  string
	}{
		{0, 1, 1800, "--cost-per-hour"},
		{math.NaN(), 1, 1800, "--cost-per-hour"},
		{2, 0, 1800, "--gpus"},
		{2, 1, 0, "nothing to price"},
		{2, 1, math.Inf(1), "nothing to price"},
	} {
		if _, err := CostAtKnee(tc.price, tc.gpus, tc.tokS); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CostAtKnee(%v, %d, %v): %v, want an error naming %s", tc.price, tc.gpus, tc.tokS, err, tc.want)
		}
	}
}
