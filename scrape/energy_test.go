package scrape

import (
	"math"
	"testing"

	"github.com/llm-replay/replay/results"
)

// constant is a GPU drawing w watts, read every second from 0 to 10 s.
func constant(gpu string, w float64) []results.ServerSample {
	var out []results.ServerSample
	for s := 0; s <= 10; s++ {
		out = append(out, results.ServerSample{OffsetS: float64(s), Values: map[string]float64{
			`DCGM_FI_DEV_POWER_USAGE{gpu="` + gpu + `"}`: w}})
	}
	return out
}

// TestEnergyPerTokenKnownNumbers: two GPUs at a constant 300 W and 200 W for 10 s draw
// 3,000 + 2,000 J; over 5,000 output tokens that is 1.0 J per token.
func TestEnergyPerTokenKnownNumbers(t *testing.T) {
	samples := constant("0", 300)
	for i, s := range constant("1", 200) {
		for k, v := range s.Values {
			samples[i].Values[k] = v
		}
	}
	jpt, err := EnergyPerToken(PowerSeries(samples), 5000)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(jpt-1.0) > 1e-12 {
		t.Fatalf("%v J/token, want 1.0", jpt)
	}
}

// TestEnergyTrapezoid: a ramp from 100 W to 300 W over 4 s is 800 J, whatever the order the
// readings come in, and a GPU read at other times than the next is integrated on its own.
func TestEnergyTrapezoid(t *testing.T) {
	power := map[string][]PowerPoint{
		"0": {{OffsetS: 4, Watts: 300}, {OffsetS: 0, Watts: 100}, {OffsetS: 2, Watts: 200}},
		"1": {{OffsetS: 0.5, Watts: 50}, {OffsetS: 2.5, Watts: 50}, {OffsetS: 3, Watts: math.NaN()}},
	}
	j, err := EnergyJoules(power)
	if err != nil {
		t.Fatal(err)
	}
	if j != 800+100 {
		t.Fatalf("%v J, want 900", j)
	}
}

func TestEnergyErrors(t *testing.T) {
	if _, err := EnergyPerToken(map[string][]PowerPoint{"0": {{0, 100}, {1, 100}}}, 0); err == nil {
		t.Error("no error for zero tokens")
	}
	if _, err := EnergyPerToken(map[string][]PowerPoint{"0": {{0, 100}}}, 10); err == nil {
		t.Error("no error for a single reading")
	}
	if _, err := EnergyPerToken(nil, 10); err == nil {
		t.Error("no error without readings")
	}
}
