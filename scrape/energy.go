package scrape

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/llm-replay/replay/results"
)

// PowerPoint is one reading of one GPU's power draw: seconds since the scraping started and
// watts.
type PowerPoint struct {
	OffsetS float64
	Watts   float64
}

// PowerSeries collects each GPU's power readings from the samples of a scraper of DCGM's
// series, keyed by the gpu label. Samples without a GPU's power leave a gap the integration
// bridges.
func PowerSeries(samples []results.ServerSample) map[string][]PowerPoint {
	out := map[string][]PowerPoint{}
	for _, s := range samples {
		for _, g := range GPUs(s.Values) {
			if !math.IsNaN(g.PowerW) {
				out[g.GPU] = append(out[g.GPU], PowerPoint{OffsetS: s.OffsetS, Watts: g.PowerW})
			}
		}
	}
	return out
}

// EnergyJoules is the energy the GPUs drew over their readings: each GPU's power integrated
// by the trapezoid rule between its first and last reading, summed over the GPUs. The
// scraper reads once before the run and once after it, so a scraper's readings span the run.
// Each GPU is integrated on its own readings, so one missing a scrape does not skew the rest.
func EnergyJoules(power map[string][]PowerPoint) (float64, error) {
	var joules float64
	integrated := 0
	for _, pts := range power {
		e, ok := trapezoid(pts)
		if ok {
			joules += e
			integrated++
		}
	}
	if integrated == 0 {
		return 0, errors.New("energy: no GPU has two power readings")
	}
	return joules, nil
}

// EnergyPerToken is the GPUs' energy over the run per output token, in joules: EnergyJoules
// over the tokens the run generated.
func EnergyPerToken(power map[string][]PowerPoint, outputTokens int64) (float64, error) {
	if outputTokens <= 0 {
		return 0, fmt.Errorf("energy per token: %d output tokens", outputTokens)
	}
	j, err := EnergyJoules(power)
	if err != nil {
		return 0, err
	}
	return j / float64(outputTokens), nil
}

// trapezoid integrates one GPU's readings in time order; ok is false with fewer than two
// usable readings (finite, non-negative watts).
func trapezoid(pts []PowerPoint) (float64, bool) {
	use := make([]PowerPoint, 0, len(pts))
	for _, p := range pts {
		if !math.IsNaN(p.Watts) && !math.IsInf(p.Watts, 0) && p.Watts >= 0 && !math.IsNaN(p.OffsetS) && !math.IsInf(p.OffsetS, 0) {
			use = append(use, p)
		}
	}
	if len(use) < 2 {
		return 0, false
	}
	slices.SortStableFunc(use, func(a, b PowerPoint) int { return cmp.Compare(a.OffsetS, b.OffsetS) })
	var e float64
	for i := 1; i < len(use); i++ {
		e += (use[i].Watts + use[i-1].Watts) / 2 * (use[i].OffsetS - use[i-1].OffsetS)
	}
	return e, true
}
