package runner

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/live"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/scrape"
	"github.com/llm-replay/replay/snapshot"
)

// leg is one endpoint of a run: the run's configuration with the endpoint's URL, model and key
// (and, in a paired run, its own folder under Out and its label before its messages), its
// target, what sends to it, the sink of its rows and the scrapers that watch it. A single run
// is one leg with no label, its files in Out itself; a paired run has one leg per endpoint.
type leg struct {
	ep   Endpoint
	cfg  Config
	tg   *target
	o    *outcome
	s    *sender
	sk   *sink
	live *live.Metrics
	scr  *scrape.Scraper
	gpus []*scrape.Scraper
	// sends is the leg's send log (sendlog.go), what a resume reads.
	sends *sendLog
}

// runEndpoints are the run's endpoints: Config.Endpoints when there are two or more (checked
// by checkEndpoints), else the one of Client.BaseURL, Model and APIKey, with no label.
func runEndpoints(cfg Config) ([]Endpoint, error) {
	if len(cfg.Endpoints) <= 1 {
		return []Endpoint{{URL: cfg.Client.BaseURL, Model: cfg.Client.Model, APIKey: cfg.Client.APIKey}}, nil
	}
	return cfg.Endpoints, checkEndpoints(cfg)
}

// legConfig is the run's configuration for endpoint e.
func legConfig(cfg Config, e Endpoint) Config {
	lc := cfg
	lc.Endpoints = nil
	lc.Client.BaseURL, lc.Client.Model, lc.Client.APIKey = e.URL, e.Model, e.APIKey
	if e.Label != "" {
		lc.Out = filepath.Join(cfg.Out, e.Label)
		lc.Stderr = prefixed(cfg.Stderr, e.Label) // its messages say which endpoint
	}
	return lc
}

// named says which endpoint err is of, in a paired run; a single run's errors are its own.
func (l *leg) named(err error) error {
	if err == nil || l.ep.Label == "" {
		return err
	}
	return fmt.Errorf("endpoint %s: %w", l.ep.Label, err)
}

// startLegs makes each endpoint's folder and target. On an error the legs started so far are
// returned, for the caller to stop (stopLegs).
func startLegs(ctx context.Context, cfg Config, p *plan, eps []Endpoint) ([]*leg, error) {
	var legs []*leg
	for _, e := range eps {
		l := &leg{ep: e, cfg: legConfig(cfg, e)}
		if err := os.MkdirAll(l.cfg.Out, 0o755); err != nil {
			return legs, fmt.Errorf("creating %s: %w", l.cfg.Out, err)
		}
		if err := writeShardInfo(l.cfg); err != nil {
			return legs, err
		}
		tg, err := startTarget(ctx, l.cfg, p)
		if err != nil {
			return legs, l.named(err)
		}
		l.tg = tg
		legs = append(legs, l)
	}
	return legs, nil
}

// stopLegs stops every leg's target (the simulator, when one was started).
func stopLegs(legs []*leg) {
	for _, l := range legs {
		_ = l.tg.stop()
	}
}

// probeLegs runs the behaviour checks of each endpoint alone, before any warmup.
func probeLegs(ctx context.Context, legs []*leg) error {
	for _, l := range legs {
		var err error
		if l.tg.checks, err = probeChecks(ctx, l.cfg, l.tg); err != nil {
			return l.named(err)
		}
	}
	return nil
}

// open creates the leg's requests.parquet (and its journal) and summary aggregator, and starts
// the sink of its outputs (the file, the aggregator, its live series under --metrics-listen,
// its partial summaries, the run's progress line) and its sender.
func (l *leg) open(x *execution) error {
	cfg, p := l.cfg, x.p
	var err error
	if l.sends, err = openSends(cfg.Out, p); err != nil {
		return err
	}
	w, err := openRows(cfg.Out, cfg.Calibration)
	if err != nil {
		_ = l.sends.close(false)
		return err
	}
	// Started after the journal was created: a summary older than the journal is another run's.
	l.o = &outcome{speed: speedOf(cfg.Schedule), started: time.Now(), clientLimit: x.sched.ClientLimit}
	l.o.metrics = analysis.NewMetrics(analysis.Options{Speed: cfg.Schedule.Speed, SLO: p.slo, CostPerHour: cfg.CostPerHour, GPUs: cfg.GPUs, Calibration: cfg.Calibration,
		ClassSLOs: cfg.Routing.ClassSLOs})
	outs := []Output{w, l.o.metrics}
	if cfg.MetricsListen != "" {
		l.live = live.New(live.Config{Endpoint: cmp.Or(l.ep.Label, l.tg.label), API: cfg.Client.API, Shard: shardLabel(cfg),
			Scheduled: len(x.items), Sent: x.sched.Counters.Sent, InFlight: x.sched.Counters.InFlight,
			Queued: x.sched.Counters.Queued, Held: x.sched.Counters.Held, MaxErrorRate: cfg.MaxErrorRate, MaxLateness: cfg.MaxLateness})
		outs = append(outs, l.live)
	}
	traces, spans, err := openTelemetry(cfg, l.tg)
	if err != nil {
		_ = w.Close()
		_ = l.sends.close(false)
		return err
	}
	if spans != nil {
		outs = append(outs, spans)
	}
	if cfg.SnapshotEvery > 0 {
		// What is known before sending is the snapshot's run block.
		snap, err := snapshot.New(cfg.Out, cfg.SnapshotEvery, l.o.metrics, runInfo(cfg, p, l.tg, l.o),
			func(err error) { fmt.Fprintf(cfg.Stderr, "replay: %v (the run goes on)\n", err) })
		if err != nil {
			_ = w.Close()
			return err
		}
		outs = append(outs, snap)
	}
	l.sk = newSink(append(outs, x.prog)...)
	l.s = &sender{client: l.tg.client, sendIDs: cfg.SendIDs, api: cfg.Client.API,
		keepPrompts: cfg.KeepPrompts, label: l.tg.label, sink: l.sk, retries: cfg.Retries,
		logged: p.logged, verbatim: p.verbatim, capAsMaxTokens: l.tg.eng.capAsMaxTokens(p, cfg.Stderr),
		unforcedAPIs: l.tg.eng.unforcedAPIs(p, cfg.Client.API, cfg.Stderr), sends: l.sends, shift: x.shift,
		traces: traces, spans: spans, route: newRoutes(cfg.Routing)}
	return nil
}

// openSends starts the send log in dir for p's measured requests, or for a resumed plan goes on
// with the killed run's.
func openSends(dir string, p *plan) (*sendLog, error) {
	path := filepath.Join(dir, runfolder.Sends)
	if p.resume != nil {
		return appendSendLog(path, p.resume.sends.size)
	}
	return createSendLog(path, p.count())
}

// shardLabel is the live series' shard label: "K/N", or "" for a run that is not sharded.
func shardLabel(cfg Config) string {
	if sc := cfg.Schedule; sc.Shards > 1 {
		return fmt.Sprintf("%d/%d", sc.Shard, sc.Shards)
	}
	return ""
}
