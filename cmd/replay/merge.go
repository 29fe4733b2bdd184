package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/report"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/shard"
)

func init() {
	register(&command{
		name:    "merge",
		summary: "merge the folders of a sharded run (run --shard K/N) into one run folder, exactly",
		usage:   "--out DIR SHARD_DIR... [--quiet]",
		example: "  # 4 shards of one run, each replayed with the same --start-at:\n" +
			"  replay merge --out merged /results/shard-0 /results/shard-1 /results/shard-2 /results/shard-3\n" +
			"  replay merge --out merged /results/shard-*",
		exits: "  0 merged (the verdict is in OUT/summary.json; a missing shard is named there)\n" +
			"  1 bad input: a folder is not a shard's, or the folders are not shares of one run\n" +
			"    (different traces, N or --start-at, a shard twice, a request id in two shards)",
		setup: func(fs *pflag.FlagSet, std cli) func(ctx context.Context, args []string) error {
			out := fs.String("out", "", "the merged run's folder: requests.parquet, shards.json, summary.json, report.html")
			quiet := fs.Bool("quiet", false, "write the files without printing the table")
			return func(ctx context.Context, args []string) error {
				if *out == "" {
					return errors.New("--out DIR is required: the folder to write the merged run to")
				}
				if len(args) == 0 {
					return errors.New("want the shard folders to merge, e.g. replay merge --out merged /results/shard-*")
				}
				return mergeShards(ctx, std, *out, args, *quiet)
			}
		},
	})
}

// mergeShards runs the merge and says on stderr what a person must know: the shards that
// were cut and recovered, warnings, the combined schedule and the verdict.
func mergeShards(ctx context.Context, std cli, out string, dirs []string, quiet bool) error {
	r, err := shard.Merge(ctx, out, dirs)
	if err != nil {
		return err
	}
	if !quiet {
		if err := report.WriteTable(std.stdout, r.Summary); err != nil {
			return err
		}
	}
	for _, f := range r.Folders {
		if f.Recovery != "" {
			fmt.Fprintf(std.stderr, "replay merge: %s: %s\n", f.Folder, f.Recovery)
		}
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(std.stderr, "replay merge: warning: %s\n", w)
	}
	fmt.Fprintf(std.stderr, "replay merge: %s\n", r.Schedule.Line)
	fmt.Fprintf(std.stderr, "replay merge: verdict: %s\n", r.Summary.Verdict)
	fmt.Fprintf(std.stderr, "wrote %d rows of %d shards to %s (%s, %s, %s, %s)\n", r.Rows, len(r.Folders), out,
		runfolder.Requests, runfolder.Shards, runfolder.Summary, runfolder.Report)
	return nil
}
