package runner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/scheduler"
	"github.com/llm-replay/replay/scrape"
	"github.com/llm-replay/replay/synth"
)

// outcome is what executing the plan produced, beside the rows already on disk.
type outcome struct {
	metrics      *analysis.Metrics
	stats        scheduler.Stats
	speed        float64
	started      time.Time
	server       *analysis.ServerCache
	wroteMetrics bool
	clientLimit  int
	// buildErr is why a plan built as the run went stopped the run (a record it could not
	// build): the rows sent before it are written and summarised, and the run ends with it.
	buildErr error
}

// holdLimit is the scheduler's ClientLimit for this run: cfg.ClientLimit when given, else what
// this machine can hold (clientLimit); 0 for none.
func holdLimit(cfg Config, tg *target) (int, string) {
	switch {
	case cfg.ClientLimit > 0:
		return cfg.ClientLimit, "--client-limit"
	case cfg.ClientLimit < 0:
		return 0, ""
	}
	return clientLimit(tg.simulated)
}

// openRows creates dir's requests.parquet (and its journal) and, for a calibrated run, keeps
// the calibration beside it, written with the journal: a cut run's recovery finds it there
// and splits TTFT with it (analysis/run_calibration.go).
func openRows(dir string, cal *analysis.Calibration) (*results.Writer, error) {
	w, err := results.NewWriter(filepath.Join(dir, analysis.RequestsFile))
	if err != nil || cal == nil {
		return w, err
	}
	if err := analysis.WriteCalibration(dir, cal); err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("keeping the calibration in %s: %w", dir, err)
	}
	return w, nil
}

// execute sends the warmup, then the measured requests on schedule while the endpoint's
// metrics are scraped, streaming every finished row to requests.parquet and the metrics.
func execute(ctx context.Context, cfg Config, p *plan, tg *target) (*outcome, error) {
	w, err := openRows(cfg.Out, cfg.Calibration)
	if err != nil {
		return nil, err
	}
	// Started after the journal was created: a summary older than the journal is another run's.
	o := &outcome{speed: speedOf(cfg.Schedule), started: time.Now()}
	o.metrics = analysis.NewMetrics(analysis.Options{Speed: cfg.Schedule.Speed, SLO: p.slo, CostPerHour: cfg.CostPerHour, GPUs: cfg.GPUs, Calibration: cfg.Calibration})
	items, span := scheduleItems(p.reqs, false)
	sched, why := o.schedule(cfg, tg)
	sk, stopWatch, err := o.openSink(ctx, cfg, p, tg, w, sched.Counters, len(items))
	if err != nil {
		_ = w.Close()
		return nil, err
	}
	prog := newProgress(len(items), time.Duration(float64(span)/o.speed), sched.Counters, cfg.Progress)
	s := &sender{client: tg.client, chat: p.synth.API == synth.APIChat, sendIDs: cfg.SendIDs,
		keepPrompts: cfg.KeepPrompts, label: tg.label, sink: sk, progress: prog, retries: cfg.Retries,
		logged: p.logged, verbatim: p.verbatim, capAsMaxTokens: tg.eng.capAsMaxTokens(p, cfg.Stderr)}

	fmt.Fprintf(cfg.Stderr, "replay: open-loop replay of %d requests (%d warmup) at %gx from %s\n", len(items), len(p.warm), o.speed, p.trace)
	if o.clientLimit > 0 {
		fmt.Fprintf(cfg.Stderr, "replay: this machine holds at most %d requests in flight (%s); sends past that wait, counted as client backlog\n", o.clientLimit, why)
	}
	runCtx, stopRun := context.WithCancelCause(ctx)
	defer stopRun(nil)
	switch {
	case p.stream != nil:
		mine, err := ownRequests(items, sched)
		if err != nil {
			return nil, errors.Join(err, sk.close(), stopWatch())
		}
		lead := time.Duration(float64(streamLead) * o.speed) // the first streamLead of the run's wall time
		s.stream = startStream(runCtx, p.stream.builder, p.stream.recs, mine, s, p.stream.budget, p.synth.BlockSize, lead, stopRun)
	case sched.Shards <= 1: // a shard sends a share of the plan: its encoder would run ahead of nothing
		s.pre = startPrebuild(ctx, s, p.reqs)
	}
	prog.run(cfg.Stderr)
	runErr := o.run(runCtx, cfg, p, tg, sched, s, items)
	s.pre.close()
	if s.stream != nil {
		var buildErr error
		p.ideal, buildErr = s.stream.close()
		if buildErr != nil { // the run stopped for it: the error, not the stop, is what to say
			o.buildErr = fmt.Errorf("building the prompts as the run went: %w", buildErr)
			if errors.Is(runErr, context.Canceled) {
				runErr = nil
			}
		}
	}
	prog.finish()
	runErr = errors.Join(runErr, sk.close(), stopWatch())
	return o, runErr
}

// schedule is the scheduler's configuration for the measured phase: live counters, the
// client's in-flight limit, the window already applied when reading.
func (o *outcome) schedule(cfg Config, tg *target) (scheduler.Config, string) {
	sched := cfg.Schedule
	sched.Counters = &scheduler.Counters{}
	var why string
	sched.ClientLimit, why = holdLimit(cfg, tg)
	o.clientLimit = sched.ClientLimit
	sched.From, sched.To = 0, 0 // the scheduler re-bases to the first record
	return sched, why
}

// run is the timed part: warmup on its own, before the server's counters are first read (so
// the server-side hit rate covers the measured requests only), then the schedule, scraped.
func (o *outcome) run(ctx context.Context, cfg Config, p *plan, tg *target, sched scheduler.Config, s *sender, items []scheduler.Item) error {
	if warm, _ := scheduleItems(p.warm, true); len(warm) > 0 {
		wcfg := scheduler.Config{Speed: sched.Speed, MaxConcurrency: sched.MaxConcurrency, ClientLimit: sched.ClientLimit, Counters: &scheduler.Counters{}}
		if _, err := scheduler.Run(ctx, warm, wcfg, s.send); err != nil {
			return err
		}
	}
	tg.eng.resetCache(ctx, cfg) // --reset-cache: cold before the counters' baseline
	var scr *scrape.Scraper
	if tg.metricsURL != "" {
		var err error
		scr, err = scrape.Start(ctx, scrape.Config{URL: tg.metricsURL, Interval: cfg.MetricsInterval,
			Path: filepath.Join(cfg.Out, ServerMetricsFile), Warn: cfg.Stderr,
			Names: tg.eng.names(), Client: tg.eng.scrapeClient(cfg, true)})
		if err != nil {
			return err
		}
	}
	gpus, err := tg.eng.startGPUs(ctx, cfg)
	if err != nil {
		if scr != nil {
			scr.Stop()
		}
		return err
	}
	if s.stream != nil { // the first prompts ready before the clock starts
		if err := s.stream.filled(ctx); err != nil {
			return err
		}
	}
	preconnect(ctx, tg.client, preconnectCount(cfg.Preconnect, items, sched.Speed, sched.ClientLimit), "", cfg.Stderr)
	restoreGC := holdGC(cfg.Stderr)
	o.stats, err = scheduler.Run(ctx, items, sched, s.send)
	restoreGC()
	tg.eng.stopGPUs(gpus)
	tg.eng.addGPUSeries(o.metrics) // report.html plots them beside the engine's series
	if scr != nil {
		res := scr.Stop()
		o.server = serverCache(res)
		o.metrics.AddServerSamples(res.Samples)
		if res.WriteError != nil {
			fmt.Fprintf(cfg.Stderr, "replay: server metrics: %v (the summary still has them)\n", res.WriteError)
		}
		o.wroteMetrics = res.Scrapes > 0 && res.WriteError == nil
	}
	return err
}

// ownRequests marks the requests a shard sends, by index (nil for a run that sends them all):
// a streamed plan builds every request, in order, and keeps a shard's own.
func ownRequests(items []scheduler.Item, sched scheduler.Config) ([]bool, error) {
	if sched.Shards <= 1 {
		return nil, nil
	}
	share, err := scheduler.Share(items, sched)
	if err != nil {
		return nil, err
	}
	mine := make([]bool, len(items))
	for _, it := range share {
		mine[it.Index] = true
	}
	return mine, nil
}

// scheduleItems turns built requests into the scheduler's items and returns the latest trace
// offset among them. Warmup items carry no session, so they never gate a turn.
func scheduleItems(reqs []synth.Request, warmup bool) ([]scheduler.Item, time.Duration) {
	items := make([]scheduler.Item, 0, len(reqs))
	var span time.Duration
	for i := range reqs {
		r := &reqs[i]
		it := scheduler.Item{Index: i, Timestamp: r.Record.Timestamp, Warmup: warmup, Payload: r}
		if !warmup {
			it.SessionID, it.Turn = r.Record.SessionID, r.Record.Turn
		}
		items = append(items, it)
		span = max(span, r.Record.Timestamp)
	}
	return items, span
}

// speedOf is the schedule's speed factor, 1 when unset.
func speedOf(c scheduler.Config) float64 {
	if c.Speed <= 0 {
		return 1
	}
	return c.Speed
}
