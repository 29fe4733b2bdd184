package sweep

import (
	"fmt"
	"math"

	"github.com/llm-replay/replay/analysis"
)

// KneeCost prices a sweep's knee: the throughput an endpoint sustains while it still holds the
// SLO is the throughput to buy, so its cost per million output tokens is the figure to quote
// for capacity planning (the summary's Cost prices a single run's operating point instead).
type KneeCost struct {
	PerGPUHour float64 `json:"per_gpu_hour"`
	GPUs       int     `json:"gpus"`
	// OutputTokS is the knee's output tokens per second over its measured span.
	OutputTokS float64 `json:"output_tok_s"`
	// PerMOutputTokens is PerGPUHour*GPUs / (OutputTokS*3600) * 1e6, rounded to 4 decimals.
	PerMOutputTokens float64 `json:"per_m_output_tokens"`
}

// CostAtKnee prices outputTokS output tokens a second on gpus GPUs at perGPUHour each: the
// worked example of capacity planning, $2 an hour for one A100 at 1,800 tok/s, is
// 2 / (1,800 x 3,600) x 1e6 = $0.3086, about $0.31 per million output tokens.
func CostAtKnee(perGPUHour float64, gpus int, outputTokS float64) (*KneeCost, error) {
	switch {
	case !(perGPUHour > 0) || math.IsInf(perGPUHour, 0):
		return nil, fmt.Errorf("--cost-per-hour %v: want a positive price per GPU-hour", perGPUHour)
	case gpus <= 0:
		return nil, fmt.Errorf("--gpus %d: want 1 or more", gpus)
	case !(outputTokS > 0) || math.IsInf(outputTokS, 0):
		return nil, fmt.Errorf("output throughput %v tok/s at the knee: nothing to price", outputTokS)
	}
	v := analysis.PerMTokens(perGPUHour*float64(gpus), outputTokS)
	return &KneeCost{PerGPUHour: perGPUHour, GPUs: gpus, OutputTokS: outputTokS, PerMOutputTokens: *v}, nil
}

// String is the cost as a person quotes it: "$0.31/M output tokens (1 GPU at $2.00/h, 1800 tok/s)".
func (c *KneeCost) String() string {
	g := "GPUs"
	if c.GPUs == 1 {
		g = "GPU"
	}
	return fmt.Sprintf("$%.2f/M output tokens (%d %s at $%.2f/h, %.0f tok/s)", c.PerMOutputTokens, c.GPUs, g, c.PerGPUHour, c.OutputTokS)
}
