package runner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/internal/gchold"
	"github.com/llm-replay/replay/progress"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/scheduler"
	"github.com/llm-replay/replay/synth"
)

// outcome is what executing the plan produced for one leg, beside the rows already on disk.
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
	// resume is a resumed run's account (resume.go); nil for a run in one go.
	resume *analysis.Resume
}

// execution is what a run's legs share while it sends: the plan, one schedule (each request
// goes to every leg at its time), one progress line, one page of replay's own metrics, and the
// plan built as the run goes (built once, taken by each leg).
type execution struct {
	cfg      Config
	p        *plan
	legs     []*leg
	sched    scheduler.Config
	items    []scheduler.Item
	limit    int    // the client's in-flight limit, before a paired run shares it
	why      string // where limit comes from
	prog     *progress.Display
	stream   *streamPlan
	stopLive func() error
	// shift is where a resumed run's clock starts on the killed run's time line (its rows are
	// moved there); 0 for a run in one go.
	shift int64
}

// holdLimit is the scheduler's ClientLimit for this run: cfg.ClientLimit when given, else what
// this machine can hold (client.InFlightLimit); 0 for none.
func holdLimit(cfg Config, tg *target) (int, string) {
	switch {
	case cfg.ClientLimit > 0:
		return cfg.ClientLimit, "--client-limit"
	case cfg.ClientLimit < 0:
		return 0, ""
	}
	return client.InFlightLimit(tg.simulated)
}

// openRows creates dir's requests.parquet (and its journal) and, for a calibrated run, keeps
// the calibration beside it, written with the journal: a cut run's recovery finds it there
// and splits TTFT with it (analysis/run_calibration.go).
func openRows(dir string, cal *analysis.Calibration) (*rowfile.Writer, error) {
	w, err := rowfile.NewWriter(filepath.Join(dir, runfolder.Requests))
	if err != nil || cal == nil {
		return w, err
	}
	if err := analysis.WriteCalibration(dir, cal); err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("keeping the calibration in %s: %w", dir, err)
	}
	return w, nil
}

// execute opens every leg's rows and outputs, sends the warmup, then the measured requests on
// schedule to every leg while each endpoint's metrics are scraped, every finished row streamed
// to its leg's outputs; each leg's outcome is then in l.o.
func execute(ctx context.Context, cfg Config, p *plan, legs []*leg) error {
	x := newExecution(cfg, p, legs)
	if err := x.open(ctx); err != nil {
		return err
	}
	x.announce()
	if err := x.copyResumed(); err != nil {
		return errors.Join(err, x.close())
	}
	runCtx, stopRun := context.WithCancelCause(ctx)
	defer stopRun(nil)
	pre, err := x.build(ctx, runCtx, stopRun)
	if err != nil {
		return errors.Join(err, x.close())
	}
	x.prog.Run(cfg.Stderr)
	runErr := x.run(runCtx)
	for _, b := range pre {
		b.close()
	}
	runErr = x.endStream(runErr)
	x.prog.Finish()
	runErr = errors.Join(runErr, x.close())
	return errors.Join(runErr, x.endSends(runErr))
}

// newExecution lays out the schedule of the measured phase: live counters, the client's
// in-flight limit shared among the legs, the window already applied when reading.
func newExecution(cfg Config, p *plan, legs []*leg) *execution {
	x := &execution{cfg: cfg, p: p, legs: legs, sched: cfg.Schedule}
	var span time.Duration
	x.items, span = p.items()
	if p.resume != nil {
		x.items, x.shift = p.resume.items(x.items, speedOf(cfg.Schedule))
	}
	x.sched.Counters = &scheduler.Counters{}
	x.sched.From, x.sched.To = 0, 0 // the scheduler re-bases to the first record
	x.limit, x.why = holdLimit(cfg, legs[0].tg)
	x.sched.ClientLimit = shareLimit(x.limit, len(legs))
	x.prog = progress.New(len(x.items), time.Duration(float64(span)/speedOf(cfg.Schedule)), x.sched.Counters, cfg.Progress)
	x.prog.JudgeLateness(cfg.MaxLateness) // the verdict's limit (finish.go), so the live line agrees with it
	return x
}

// open opens every leg (leg.open) and serves their live series; on an error what was opened
// is closed.
func (x *execution) open(ctx context.Context) error {
	for i, l := range x.legs {
		if err := l.open(x); err != nil {
			return errors.Join(l.named(err), closeSinks(x.legs[:i]))
		}
	}
	var err error
	if x.stopLive, err = serveLive(ctx, x.cfg, x.legs); err != nil {
		return errors.Join(err, closeSinks(x.legs))
	}
	return nil
}

// closeSinks waits for every leg's rows to reach its outputs and closes them.
func closeSinks(legs []*leg) error {
	var errs []error
	for _, l := range legs {
		errs = append(errs, l.sk.close())
	}
	return errors.Join(errs...)
}

// close closes every leg's outputs, then the live page once its final figures were read.
func (x *execution) close() error {
	err := closeSinks(x.legs)
	return errors.Join(err, x.stopLive())
}

// announce says what the run sends, where, and the client's in-flight limit.
func (x *execution) announce() {
	cfg, n, speed := x.cfg, len(x.items), speedOf(x.cfg.Schedule)
	if len(x.legs) == 1 {
		fmt.Fprintf(cfg.Stderr, "replay: open-loop replay of %d requests (%d warmup) at %gx from %s\n", n, len(x.p.warm), speed, x.p.trace)
		if x.limit > 0 {
			fmt.Fprintf(cfg.Stderr, "replay: this machine holds at most %d requests in flight (%s); sends past that wait, counted as client backlog\n", x.limit, x.why)
		}
		return
	}
	fmt.Fprintf(cfg.Stderr, "replay: open-loop replay of %d requests (%d warmup) at %gx from %s to %d endpoints at once (%s)\n",
		n, len(x.p.warm), speed, x.p.trace, len(x.legs), strings.Join(labelList(x.legs), ", "))
	if x.sched.ClientLimit > 0 {
		fmt.Fprintf(cfg.Stderr, "replay: this machine holds at most %d requests in flight (%s); each request goes to %d endpoints, so at most %d are in flight at once; sends past that wait, counted as client backlog\n",
			x.limit, x.why, len(x.legs), x.sched.ClientLimit)
	}
}

// build starts what encodes bodies ahead of their sends: for a plan built as the run goes, its
// one builder, each request encoded for every leg and taken by each (stopping the run through
// stop when a record cannot be built); else an encoder per leg (prebuild.go), unless the run
// is a shard, which sends a share of the plan its encoder would run ahead of nothing.
func (x *execution) build(ctx, runCtx context.Context, stop context.CancelCauseFunc) ([]*prebuilder, error) {
	p := x.p
	if p.stream != nil {
		mine, err := ownRequests(x.items, x.sched)
		if err != nil {
			return nil, err
		}
		if p.resume != nil {
			mine = p.resume.unsent
		}
		takers := make([]*sender, len(x.legs))
		for i, l := range x.legs {
			takers[i], l.s.leg = l.s, i
		}
		lead := time.Duration(float64(streamLead) * speedOf(x.cfg.Schedule)) // the first streamLead of the run's wall time
		x.stream = startStream(runCtx, p.stream.builder, p.stream.recs, mine, takers, p.stream.budget, p.synth.BlockSize, lead, stop)
		for _, l := range x.legs {
			l.s.stream = x.stream
		}
		return nil, nil
	}
	if x.sched.Shards > 1 {
		return nil, nil
	}
	pre := make([]*prebuilder, len(x.legs))
	for i, l := range x.legs {
		var keep []bool
		if p.resume != nil {
			keep = p.resume.unsent
		}
		l.s.pre = startPrebuild(ctx, l.s, p.reqs, keep)
		pre[i] = l.s.pre
	}
	return pre, nil
}

// endStream stops a streamed plan's builder and keeps its ideal cache; a build that failed is
// what stopped the run, so it becomes each leg's buildErr and the stop is not an error.
func (x *execution) endStream(runErr error) error {
	if x.stream == nil {
		return runErr
	}
	var buildErr error
	x.p.ideal, buildErr = x.stream.close()
	if buildErr == nil {
		return runErr
	}
	for _, l := range x.legs {
		l.o.buildErr = fmt.Errorf("building the prompts as the run went: %w", buildErr)
	}
	if errors.Is(runErr, context.Canceled) {
		return nil
	}
	return runErr
}

// run is the timed part: warmup on its own, before the servers' counters are first read, then
// the cache reset, the scrapers and the schedule, sent to every leg.
func (x *execution) run(ctx context.Context) error {
	send := sendAll(x.legs)
	if warm, _ := scheduleItems(x.p.warm, true); len(warm) > 0 {
		wcfg := scheduler.Config{Speed: x.sched.Speed, MaxConcurrency: x.sched.MaxConcurrency, ClientLimit: x.sched.ClientLimit, Counters: &scheduler.Counters{}}
		if _, err := scheduler.Run(ctx, warm, wcfg, send); err != nil {
			return err
		}
	}
	for _, l := range x.legs {
		l.tg.eng.resetCache(ctx, l.cfg) // --reset-cache: cold before the counters' baseline
	}
	for i, l := range x.legs {
		if err := l.watch(ctx); err != nil {
			unwatch(x.legs[:i])
			return err
		}
	}
	if x.stream != nil { // the first prompts ready before the clock starts
		if err := x.stream.filled(ctx); err != nil {
			unwatch(x.legs)
			return err
		}
	}
	n := preconnectCount(x.cfg.Preconnect, x.items, x.sched.Speed, x.sched.ClientLimit)
	for _, l := range x.legs {
		preconnect(ctx, l.tg.client, n, l.ep.Label, x.cfg.Stderr)
	}
	x.noteResume()
	restoreGC, err := gchold.Hold(x.cfg.Stderr, uint64(memoryBudget(x.cfg.Memory)))
	if err != nil {
		unwatch(x.legs)
		return overBudget(err, x.p)
	}
	stats, err := scheduler.Run(ctx, x.items, x.sched, x.prog.Track(send))
	restoreGC()
	unwatch(x.legs)
	for _, l := range x.legs {
		l.o.stats = stats
	}
	return err
}

// unwatch stops every leg's scrapers.
func unwatch(legs []*leg) {
	for _, l := range legs {
		l.unwatch()
	}
}

// sendAll is the scheduler's SendFunc: a single run's sender, or for a paired run the item to
// every endpoint at once, one on the scheduler's sender goroutine and each other one on a
// goroutine of its own, all at the item's scheduled time (each row's own send time read as its
// request leaves), returning when every endpoint has answered. So a session's next turn is
// released by its slowest endpoint's answer: every endpoint gets each turn at the same moment,
// and the faster one's sessions wait on the slower one's. Which endpoint is written to first
// turns with the request's index, so that none is always first.
func sendAll(legs []*leg) scheduler.SendFunc {
	if len(legs) == 1 {
		return legs[0].s.send
	}
	return func(ctx context.Context, it scheduler.Item, t scheduler.Timing) {
		var wg sync.WaitGroup
		first := it.Index % len(legs)
		for k := 1; k < len(legs); k++ {
			l := legs[(first+k)%len(legs)]
			wg.Go(func() {
				lt := t
				lt.SentNS = t.Clock.Now()
				l.s.send(ctx, it, lt)
			})
		}
		lt := t // t is the goroutines' to copy
		lt.SentNS = t.Clock.Now()
		legs[first].s.send(ctx, it, lt)
		wg.Wait()
	}
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
