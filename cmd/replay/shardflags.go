package main

import (
	"errors"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/runner"
	"github.com/llm-replay/replay/shard"
)

// shardFlags split one replay across N processes or machines on a shared clock.
type shardFlags struct{ shard, startAt string }

func (f *shardFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.shard, "shard", "", "replay share K of N (K from 0), e.g. 2/4: sessions stay whole on one shard; merge the folders with replay merge")
	fs.StringVar(&f.startAt, "start-at", "", "with --shard: the instant every shard schedules from, RFC 3339 or Unix seconds (e.g. $(( $(date +%s) + 60 ))); a shard started late sends what is due at once, recorded as lateness")
}

// apply puts the shard and its start instant into cfg.
func (f *shardFlags) apply(cfg *runner.Config) error {
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
	k, n, err := shard.ParseShard(f.shard)
	if err != nil {
		return err
	}
	if n > 1 && f.startAt == "" {
		return errors.New("--shard needs --start-at: every shard must schedule from the same instant")
	}
	cfg.Schedule.Shard, cfg.Schedule.Shards = k, n
	return nil
}
