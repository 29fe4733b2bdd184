package cachestudy

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/runner"
)

// arm is one finished arm: the plan it sent (the curve is drawn over its prompts), its summary
// and the engine's capacity as its metrics page gave it before the arm's requests.
type arm struct {
	plan     runner.Plan
	sum      *analysis.Summary
	capacity *EngineCapacity
	capErr   error
}

// runArm is one arm, a whole runner.Run into base.Out/name: unique prefixes or as traced, the
// engine's prefix cache reset first, its messages marked with the arm's name and its table on
// the study's stderr (stdout is the study's verdict). Its prompts are built whole before it
// sends (the curve is drawn over every one), no behaviour check probes the endpoint (the study
// measures caching, and each probe would warm the cache), and the engine's KV capacity is read
// from its metrics page once the target is up, before the warmup.
func runArm(ctx context.Context, base runner.Config, name string, unique bool) (*arm, error) {
	cfg := base
	cfg.UniquePrefixes, cfg.ResetCache = unique, true
	cfg.Out = filepath.Join(base.Out, name)
	cfg.Stderr = runner.Prefixed(base.Stderr, name)
	cfg.Stdout = base.Stderr
	cfg.PlanMemory = -1 // never a plan built as the run goes
	cfg.Checks = ""     // none
	fmt.Fprintf(base.Stderr, "replay cache-study: %s arm -> %s\n", name, cfg.Out)
	a := &arm{}
	cfg.OnPlan = func(p runner.Plan) error {
		a.plan = p
		return checkPlan(p)
	}
	cfg.OnStart = func(ctx context.Context, t runner.Target) error {
		if t.MetricsURL != "" {
			a.capacity, a.capErr = engineCapacity(ctx, t.HTTP, t.MetricsURL)
		}
		return nil
	}
	sum, err := runner.Run(ctx, cfg)
	if sum == nil {
		return nil, err
	}
	a.sum = sum
	return a, err
}

// checkPlan refuses, before anything is sent, a window with no curve to study: no block
// hashes, or records of different block sizes.
func checkPlan(p runner.Plan) error {
	switch {
	case p.Ideal == nil:
		return fmt.Errorf("%s: no block hashes in the window, so no prefix structure to study", p.Trace)
	case p.Ideal.BlockSize <= 0:
		return fmt.Errorf("%s: the window's records have different block sizes; the curve needs one (give --block-size)", p.Trace)
	}
	return nil
}
