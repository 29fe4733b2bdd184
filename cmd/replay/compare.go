package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/compare"
	"github.com/llm-replay/replay/runload"
)

func init() {
	register(&command{
		name:    "compare",
		summary: "compare two runs of the same trace: percentiles side by side, bootstrap CIs, verdict",
		usage:   "DIR_A DIR_B [--html FILE] [--slo S] [--fail-if-slower] [--require LIMITS]",
		example: "  replay compare out/current out/candidate --html compare.html --slo ttft=500ms,itl=60ms",
		setup: func(fs *pflag.FlagSet, std cli) func(ctx context.Context, args []string) error {
			html := fs.String("html", "", "also write the comparison as a self-contained HTML page to this file")
			slo := fs.String("slo", "", "SLO for goodput on both runs (default: run A's own)")
			resamples := fs.Int("resamples", 2000, "bootstrap resamples")
			seed := fs.Uint64("seed", 1, "bootstrap seed")
			failIfSlower := fs.Bool("fail-if-slower", false, "exit 3 when B is significantly slower (or mixed), for migration gates")
			var req requireFlag
			req.add(fs, std.stderr)
			return func(ctx context.Context, args []string) error {
				if err := req.parse(); err != nil {
					return err
				}
				if len(args) != 2 {
					return fmt.Errorf("want two run directories (A and B), got %d arguments", len(args))
				}
				if *resamples < 100 {
					return fmt.Errorf("--resamples %d: want at least 100", *resamples)
				}
				var o analysis.Options
				var err error
				if o.SLO, err = analysis.ParseSLO(*slo); err != nil {
					return fmt.Errorf("--slo: %w", err)
				}
				ma, ia, err := runload.LoadDir(args[0], o)
				if err != nil {
					return err
				}
				noteRecovery(std.stderr, "compare", args[0], ia)
				// Both runs are judged against the same SLO.
				if o.SLO.IsZero() && ia.SLO != "" {
					o.SLO, _ = analysis.ParseSLO(ia.SLO)
				}
				mb, ib, err := runload.LoadDir(args[1], o)
				if err != nil {
					return err
				}
				noteRecovery(std.stderr, "compare", args[1], ib)
				sa, sb := ma.Summary(ia), mb.Summary(ib)
				c, err := compare.Unpaired(std.stdout, compare.Run{Dir: args[0], Metrics: ma, Summary: sa},
					compare.Run{Dir: args[1], Metrics: mb, Summary: sb},
					compare.UnpairedOptions{Resamples: *resamples, Seed: *seed, HTML: *html})
				if err != nil {
					return err
				}
				var slower error
				if *failIfSlower && (c.Slower == "B" || c.Slower == "mixed") {
					slower = &exitError{code: 3, err: errors.New(c.Verdict)}
				}
				return req.gate(slower, sb, sa)
			}
		},
	})
}
