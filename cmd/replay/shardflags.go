package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/runner"
	"github.com/llm-replay/replay/shard"
)

// shardFlags split one replay across N processes or machines on a shared clock.
type shardFlags struct{ shard, startAt string }

func (f *shardFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.shard, "shard", "", "replay share K of N (K from 0), e.g. 2/4: sessions stay whole on one shard; merge the folders with replay merge. "+
		"auto: K and N from the scheduler that started the process (a Slurm job array's SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT; "+
		"a Kubernetes Indexed Job's JOB_COMPLETION_INDEX, with the count in REPLAY_SHARDS); auto/N gives the count")
	fs.StringVar(&f.startAt, "start-at", "", "with --shard: the instant every shard schedules from, RFC 3339 or Unix seconds (e.g. $(( $(date +%s) + 60 ))); a shard started late sends what is due at once, recorded as lateness")
}

// apply puts the shard and its start instant into cfg; a share taken from the scheduler
// (--shard auto) is said on stderr, so each task's log shows which share it ran.
func (f *shardFlags) apply(cfg *runner.Config, stderr io.Writer) error {
	if f.startAt != "" {
		at, err := shard.ParseStartAt(f.startAt)
		if err != nil {
			return err
		}
		cfg.Schedule.StartAt = at
	}
	if f.shard == "" {
		return nil
	}
	sh, err := shard.Resolve(f.shard, os.Getenv)
	if err != nil {
		return err
	}
	k, n := sh.K, sh.N
	if strings.HasPrefix(strings.TrimSpace(f.shard), "auto") {
		fmt.Fprintf(stderr, "replay: --shard %s: shard %d of %d (%s)\n", f.shard, k, n, sh.From)
	}
	if n > 1 && f.startAt == "" {
		return errors.New("--shard needs --start-at: every shard must schedule from the same instant")
	}
	cfg.Schedule.Shard, cfg.Schedule.Shards = k, n
	return nil
}
