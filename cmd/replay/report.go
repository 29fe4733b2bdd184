package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/report"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/runload"
)

func init() {
	register(&command{
		name:    "report",
		summary: "summarize a run directory: summary.json, report.html and a terminal table (a cut run's rows recovered first)",
		usage:   "DIR [--slo ttft=500ms,itl=60ms] [--speed X] [--cost-per-hour P --gpus N] [--calibration FILE] [--require LIMITS]",
		example: "  replay report out/run1\n  replay report out/run1 --slo ttft=500ms,itl=60ms,e2e=20s --cost-per-hour 2.5 --gpus 8\n  replay report out/run1 --require 'ttft.p95<=500ms,errors<=1%'   # gate a stored run again: exit 4 if a limit fails\n  replay report out/run1 --calibration out/cal   # split an uncalibrated run's TTFT into prefill and queueing",
		setup: func(fs *pflag.FlagSet, std cli) func(ctx context.Context, args []string) error {
			slo := fs.String("slo", "", "SLO for goodput, e.g. ttft=500ms,itl=60ms,tpot=50ms,e2e=20s (default: the run's own)")
			speed := fs.Float64("speed", 0, "the run's speed factor (default: from DIR/summary.json, else 1)")
			cost := fs.Float64("cost-per-hour", 0, "price of one GPU-hour, to report the cost per million output tokens")
			gpus := fs.Int("gpus", 1, "GPUs behind the endpoint, for --cost-per-hour")
			quiet := fs.Bool("quiet", false, "write the files without printing the table")
			calibration := fs.String("calibration", "", "replay calibrate's calibration.json: split each TTFT into predicted prefill and queueing (default: the one the run was given, kept in DIR)")
			var req requireFlag
			req.add(fs, std.stderr)
			return func(ctx context.Context, args []string) error {
				if err := req.parse(); err != nil {
					return err
				}
				if len(args) != 1 {
					return fmt.Errorf("want exactly one run directory, got %d arguments", len(args))
				}
				if *cost < 0 || *gpus < 1 {
					return fmt.Errorf("--cost-per-hour %v --gpus %d: want a price >= 0 and at least one GPU", *cost, *gpus)
				}
				o := analysis.Options{Speed: *speed, CostPerHour: *cost, GPUs: *gpus}
				var err error
				if o.SLO, err = analysis.ParseSLO(*slo); err != nil {
					return fmt.Errorf("--slo: %w", err)
				}
				if *calibration != "" {
					if o.Calibration, err = analysis.ReadCalibration(*calibration); err != nil {
						return fmt.Errorf("--calibration: %w", err)
					}
				}
				m, info, err := runload.LoadDir(args[0], o)
				if err != nil {
					return err
				}
				noteRecovery(std.stderr, "report", args[0], info)
				s, err := report.WriteRunFiles(args[0], m, info)
				if err != nil {
					return err
				}
				if !*quiet {
					if err := report.WriteTable(std.stdout, s); err != nil {
						return err
					}
				}
				wrote := fmt.Sprintf("%s/%s and %s/%s", args[0], runfolder.Summary, args[0], runfolder.Report)
				if s.Run.Calibration != "" {
					wrote = fmt.Sprintf("%s/%s, %s/%s, %s/%s and %s/%s", args[0], runfolder.Summary, args[0], runfolder.Report, args[0], runfolder.Queueing, args[0], s.Run.Calibration)
				}
				fmt.Fprintf(std.stderr, "wrote %s\n", wrote)
				return req.check(s, nil)
			}
		},
	})
}

// noteRecovery says on stderr that a run was cut and how its rows were recovered.
func noteRecovery(stderr io.Writer, cmd, dir string, info analysis.RunInfo) {
	if info.Recovery != nil {
		fmt.Fprintf(stderr, "replay %s: %s: %s\n", cmd, dir, info.Recovery)
	}
}
