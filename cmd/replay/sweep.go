package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/runner"
)

func init() {
	register(&command{
		name:    "sweep",
		summary: "Replay a trace at increasing speed factors and find the largest that holds an SLO",
		usage:   "--slo LIMITS --speeds X,Y,... [run flags] --out DIR",
		example: `  # the largest speed at which 95% of requests still meet TTFT 500 ms and ITL 60 ms
  replay sweep --trace mooncake.jsonl --endpoint http://127.0.0.1:8000/v1 --model M \
      --tokenizer ~/models/M --slo ttft=500ms,itl=60ms --speeds 1,1.5,2,3,4 --out runs/sweep`,
		exits: runExitCodes,
		setup: setupSweep,
	})
}

func setupSweep(fs *pflag.FlagSet) func(ctx context.Context, args []string) error {
	config := addRunFlags(fs)
	speeds := fs.String("speeds", "1,2,4,8", "speed factors to try, increasing; the sweep stops at the first that fails the SLO")
	target := fs.Float64("target", 95, "percent of requests that must meet every SLO limit for a speed to hold")
	return func(ctx context.Context, args []string) error {
		cfg, err := config(args)
		if err != nil {
			return err
		}
		var sp []float64
		for _, f := range strings.Split(*speeds, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				return fmt.Errorf("--speeds: %q is not a number", f)
			}
			sp = append(sp, v)
		}
		if cfg.Stderr == nil {
			cfg.Stderr = os.Stderr
		}
		res, err := runner.Sweep(ctx, cfg, sp, *target)
		if res != nil && len(res.Points) > 0 {
			runner.WriteSweepTable(os.Stdout, res)
		}
		return runExit(err)
	}
}
