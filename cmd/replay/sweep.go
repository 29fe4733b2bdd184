package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/sweep"
)

func init() {
	register(&command{
		name:    "sweep",
		summary: "Replay a trace at increasing speed factors or concurrencies and find the largest that holds an SLO",
		usage:   "--slo LIMITS (--speeds X,Y,... | --concurrency N,M,... [--all]) [run flags] --out DIR",
		example: `  # the largest speed at which 95% of requests still meet TTFT 500 ms and ITL 60 ms
  replay sweep --trace mooncake.jsonl --endpoint http://127.0.0.1:8000/v1 --model M \
      --tokenizer ~/models/M --slo ttft=500ms,itl=60ms --speeds 1,1.5,2,3,4 --out runs/sweep

  # closed loop: 1, 2, 4 ... requests in flight until TTFT p95 passes 500 ms; the knee's $/M
  replay sweep --trace mooncake.jsonl --endpoint http://127.0.0.1:8000/v1 --model M \
      --tokenizer ~/models/M --slo ttft=500ms --concurrency 1,2,4,8,16,32 \
      --cost-per-hour 2 --gpus 1 --out runs/knee`,
		exits:   runExitCodes,
		grouped: true,
		setup:   setupSweep,
	})
}

func setupSweep(fs *pflag.FlagSet, std cli) func(ctx context.Context, args []string) error {
	config := addRunFlags(fs, std)
	speeds := fs.String("speeds", "1,2,4,8", "speed factors to try, increasing; the sweep stops at the first that fails the SLO")
	conc := fs.String("concurrency", "", "closed loop instead of speeds: requests in flight per level, increasing (e.g. 1,2,4,8,16)")
	all := fs.Bool("all", false, "with --concurrency: run every level, not only up to the first that breaks the SLO")
	target := fs.Float64("target", 95, "percent of requests that must meet every SLO limit for a speed to hold; with --concurrency the percentile (90, 95 or 99) each limit must hold at")
	return func(ctx context.Context, args []string) error {
		cfg, err := config(args)
		if err != nil {
			return err
		}
		if fs.Changed("concurrency") {
			if fs.Changed("speeds") {
				return errors.New("--speeds and --concurrency are two kinds of sweep: give one")
			}
			var levels []int
			for _, f := range strings.Split(*conc, ",") {
				v, err := strconv.Atoi(strings.TrimSpace(f))
				if err != nil {
					return fmt.Errorf("--concurrency: %q is not a whole number", f)
				}
				levels = append(levels, v)
			}
			res, err := sweep.Concurrency(ctx, cfg, sweep.ConcurrencyOptions{Levels: levels, TargetPct: *target, All: *all})
			if res != nil && len(res.Points) > 0 {
				sweep.WriteConcurrencyTable(std.stdout, res)
			}
			return runExit(err)
		}
		if *all {
			return errors.New("--all goes with --concurrency")
		}
		var sp []float64
		for _, f := range strings.Split(*speeds, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				return fmt.Errorf("--speeds: %q is not a number", f)
			}
			sp = append(sp, v)
		}
		res, err := sweep.Speed(ctx, cfg, sp, *target)
		if res != nil && len(res.Points) > 0 {
			sweep.WriteSpeedTable(std.stdout, res)
		}
		return runExit(err)
	}
}
