package runner

import (
	"bytes"
	"fmt"
	"os"

	"github.com/llm-replay/replay/gen"
	"github.com/llm-replay/replay/shard"
)

// writeShardInfo records, before the first request, which share of which trace this run is
// and from which instant it schedules (shard.json), so that replay merge can refuse shards of
// different traces or schedules.
func writeShardInfo(cfg Config) error {
	sc := cfg.Schedule
	if sc.Shards <= 1 {
		return nil
	}
	id, err := traceIdentity(cfg)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	return shard.WriteInfo(cfg.Out, shard.Info{Shard: sc.Shard, Shards: sc.Shards, StartAt: sc.StartAt, Trace: id,
		Schedule: fmt.Sprintf("speed=%g from=%v to=%v limit=%d", speedOf(sc), sc.From, sc.To, cfg.Limit),
		Version:  cfg.Version, Host: host})
}

// traceIdentity is the trace file's size and hash (its files' in order, when several), or the
// default workload's, from its bytes.
func traceIdentity(cfg Config) (shard.Identity, error) {
	if len(cfg.Ingest.Files) > 0 {
		return shard.FilesIdentity(cfg.Trace, cfg.Ingest.Files)
	}
	if cfg.Trace != "" {
		return shard.TraceIdentity(cfg.Trace)
	}
	recs, err := gen.Records(gen.Default())
	if err != nil {
		return shard.Identity{}, err
	}
	var b bytes.Buffer
	if err := gen.WriteRecords(&b, recs); err != nil {
		return shard.Identity{}, err
	}
	return shard.IdentityOfBytes(DefaultWorkload, b.Bytes()), nil
}
