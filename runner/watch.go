package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/live"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/scheduler"
)

// openSink starts the row sink and what watches a run while it goes: replay's own Prometheus
// metrics (--metrics-listen) and the partial summaries (--snapshot-every). stop ends the
// watching once the sink has closed.
func (o *outcome) openSink(ctx context.Context, cfg Config, p *plan, tg *target, w *results.Writer,
	c *scheduler.Counters, scheduled int) (*sink, func() error, error) {
	stop := func() error { return nil }
	var lm *live.Metrics
	if cfg.MetricsListen != "" {
		var shardLabel string
		if sc := cfg.Schedule; sc.Shards > 1 {
			shardLabel = fmt.Sprintf("%d/%d", sc.Shard, sc.Shards)
		}
		lm = live.New(live.Config{Endpoint: tg.label, API: cfg.API, Shard: shardLabel, Scheduled: scheduled,
			Sent: c.Sent, InFlight: c.InFlight, Queued: c.Queued, Held: c.Held,
			MaxErrorRate: cfg.MaxErrorRate, MaxLateness: cfg.MaxLateness})
		addr, stopLive, err := live.Serve(ctx, cfg.MetricsListen, lm, cfg.MetricsLinger)
		if err != nil {
			return nil, nil, err
		}
		fmt.Fprintf(cfg.Stderr, "replay: serving this run's metrics at http://%s/metrics\n", addr)
		stop = stopLive
	}
	var snap *snapshots
	if cfg.SnapshotEvery > 0 {
		info := runInfo(cfg, p, tg, o) // what is known before sending: the snapshot's run block
		var err error
		snap, err = newSnapshots(cfg.Out, cfg.SnapshotEvery, func() analysis.RunInfo { return info },
			func(err error) { fmt.Fprintf(cfg.Stderr, "replay: %v (the run goes on)\n", err) })
		if err != nil {
			return nil, nil, errors.Join(err, stop())
		}
		stopLive := stop
		stop = func() error { return errors.Join(snap.close(), stopLive()) }
	}
	return newSink(w, o.metrics, lm, snap), stop, nil
}
