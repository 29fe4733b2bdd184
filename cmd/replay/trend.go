package main

import (
	"context"
	"errors"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/trend"
)

func init() {
	register(&command{
		name:    "trend",
		summary: "Put many runs of one trace side by side over wall time and flag a run outside the band of the others",
		usage:   "DIR... --out DIR",
		example: `  # the same trace replayed every few hours: TTFT and goodput per run, the spread, outliers
  replay trend runs/mon-0900 runs/mon-1500 runs/tue-0900 runs/tue-1500 runs/wed-0900 --out runs/trend`,
		exits: "  0    trend.json and trend.html written (a flagged run is a finding, not an error)\n  1    bad input: a folder without summary.json, fewer than 3 runs\n",
		setup: setupTrend,
	})
}

func setupTrend(fs *pflag.FlagSet, std cli) func(ctx context.Context, args []string) error {
	out := fs.String("out", "", "folder for trend.json and trend.html")
	k := fs.Float64("k", trend.DefaultK, "band half-width in robust standard deviations (1.4826 x MAD) of the other runs")
	return func(ctx context.Context, args []string) error {
		if len(args) == 0 {
			return errors.New("give the run folders to compare: replay trend DIR... --out DIR")
		}
		t, err := trend.Write(args, *out, *k, std.stderr)
		if err != nil {
			return err
		}
		trend.WriteTable(std.stdout, t)
		return nil
	}
}
