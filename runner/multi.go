package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/scheduler"
	"github.com/llm-replay/replay/scrape"
	"github.com/llm-replay/replay/synth"
)

// Endpoint is one of the endpoints a paired run sends every request to (Config.Endpoints).
type Endpoint struct {
	// Label names the endpoint's folder under Config.Out and its side in compare.json.
	Label string
	// URL is the endpoint's base URL, as Config.Endpoint; Model and APIKey are what its
	// requests carry.
	URL    string
	Model  string
	APIKey string
}

// labelPattern is what a label may be: a folder name on every platform, never "." or "..".
var labelPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// leg is one endpoint of a paired run: its configuration (the run's, with the endpoint's URL,
// model, key and folder), its target, and what sends to it and writes its rows.
type leg struct {
	ep        Endpoint
	cfg       Config
	tg        *target
	o         *outcome
	s         *sender
	sk        *sink
	stopWatch func() error
	scr       *scrape.Scraper
}

// runMulti is Run with two or more endpoints: the same requests, built once (the same prompt
// bytes for each), sent to every endpoint at each request's scheduled time by one scheduler.
// Each endpoint's rows, summary and report go to Out/LABEL/ as a single run's would; then the
// first endpoint (A) is compared request by request with each other one (B) in
// Out/compare.json and Out/compare.html, and the verdict is printed after the tables.
//
// It returns A's summary, and the worst of the endpoints' run errors (interrupted, then
// client-bound, then too many failures), so the exit code is what a single run's would be.
func runMulti(ctx context.Context, cfg Config) (*analysis.Summary, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := checkEndpoints(cfg); err != nil {
		return nil, err
	}
	// Prepared as for a real endpoint: the tokenizer must be the served model's.
	pcfg := cfg
	pcfg.Endpoint = cfg.Endpoints[0].URL
	p, err := prepare(ctx, pcfg, false)
	if err != nil {
		return nil, err
	}
	legs, err := startLegs(ctx, cfg, p)
	defer func() {
		for _, l := range legs {
			_ = l.tg.stop()
		}
	}()
	if err != nil {
		return nil, err
	}
	for _, l := range legs { // each endpoint alone, before any warmup
		if l.tg.checks, err = probeChecks(ctx, l.cfg, l.tg); err != nil {
			return nil, fmt.Errorf("endpoint %s: %w", l.ep.Label, err)
		}
	}
	if err := executeMulti(ctx, cfg, p, legs); err != nil {
		return nil, err
	}
	return finishMulti(cfg, p, legs)
}

// checkEndpoints refuses what a paired run cannot do: a label that is no folder name or is
// given twice, the built-in simulator as one of the endpoints, an endpoint without a model,
// and the flags that name one page for the whole run.
func checkEndpoints(cfg Config) error {
	seen := map[string]bool{}
	for _, e := range cfg.Endpoints {
		switch {
		case !labelPattern.MatchString(e.Label) || e.Label == CompareFile || e.Label == CompareHTMLFile:
			return fmt.Errorf("--endpoint label %q: want letters, digits, '.', '_' or '-' (it names the endpoint's folder)", e.Label)
		case seen[e.Label]:
			return fmt.Errorf("--endpoint label %q given twice: give each endpoint its own LABEL=", e.Label)
		case e.URL == "":
			return fmt.Errorf("--endpoint %s: the built-in simulator cannot be one of several endpoints; start `replay sim --listen ADDR` for each and give its URL", e.Label)
		case e.Model == "":
			return fmt.Errorf("--model is required for endpoint %s: give --model NAME (every endpoint) or --model %s=NAME", e.Label, e.Label)
		}
		seen[e.Label] = true
	}
	if cfg.MetricsURL != "" && cfg.MetricsURL != "none" {
		return errors.New("--metrics-url names one page: with several --endpoint each endpoint's own scheme://host/metrics is scraped (or give none)")
	}
	if len(cfg.GPUMetricsURLs) > 0 {
		return errors.New("--metrics-url's GPU exporters belong to one endpoint: not available with several --endpoint")
	}
	if cfg.MetricsListen != "" {
		return errors.New("--metrics-listen serves one endpoint's series: not available with several --endpoint")
	}
	return nil
}

// startLegs makes each endpoint's folder and target. On an error the legs started so far are
// returned, for the caller to stop.
func startLegs(ctx context.Context, cfg Config, p *plan) ([]*leg, error) {
	var legs []*leg
	for _, e := range cfg.Endpoints {
		lc := cfg
		lc.Endpoints = nil
		lc.Endpoint, lc.Model, lc.APIKey = e.URL, e.Model, e.APIKey
		lc.Out = filepath.Join(cfg.Out, e.Label)
		lc.Stderr = prefixed(cfg.Stderr, e.Label) // its messages say which endpoint
		if err := os.MkdirAll(lc.Out, 0o755); err != nil {
			return legs, fmt.Errorf("creating %s: %w", lc.Out, err)
		}
		if err := writeShardInfo(lc); err != nil {
			return legs, err
		}
		tg, err := startTarget(ctx, lc, p)
		if err != nil {
			return legs, fmt.Errorf("endpoint %s: %w", e.Label, err)
		}
		legs = append(legs, &leg{ep: e, cfg: lc, tg: tg})
	}
	return legs, nil
}

// shareLimit is each scheduled request's share of the client's in-flight limit: a request of
// a paired run holds one connection to every endpoint, so the scheduler may have limit / n of
// them in flight, and its lateness and backlog account for the whole of this machine's load.
func shareLimit(limit, n int) int {
	if limit <= 0 {
		return 0
	}
	return max(1, limit/n)
}

// executeMulti opens every endpoint's rows and sink, then sends the warmup and the measured
// requests on one schedule (runLegs) while each endpoint's metrics are scraped.
func executeMulti(ctx context.Context, cfg Config, p *plan, legs []*leg) error {
	items, span := scheduleItems(p.reqs, false)
	sched := cfg.Schedule
	sched.Counters = &scheduler.Counters{}
	sched.From, sched.To = 0, 0 // the scheduler re-bases to the first record
	limit, why := holdLimit(cfg, legs[0].tg)
	sched.ClientLimit = shareLimit(limit, len(legs))
	speed := speedOf(cfg.Schedule)
	prog := newProgress(len(items), time.Duration(float64(span)/speed), sched.Counters, cfg.Progress)
	if err := openLegs(ctx, cfg, p, legs, sched, prog, len(items)); err != nil {
		return err
	}
	fmt.Fprintf(cfg.Stderr, "replay: open-loop replay of %d requests (%d warmup) at %gx from %s to %d endpoints at once (%s)\n",
		len(items), len(p.warm), speed, p.trace, len(legs), labels(legs))
	if sched.ClientLimit > 0 {
		fmt.Fprintf(cfg.Stderr, "replay: this machine holds at most %d requests in flight (%s); each request goes to %d endpoints, so at most %d are in flight at once; sends past that wait, counted as client backlog\n",
			limit, why, len(legs), sched.ClientLimit)
	}
	prog.run(cfg.Stderr)
	stats, runErr := runLegs(ctx, cfg, p, legs, sched, items)
	prog.finish()
	for _, l := range legs {
		l.o.stats = stats
		runErr = errors.Join(runErr, l.sk.close(), l.stopWatch())
	}
	return runErr
}

// openLegs creates each endpoint's requests.parquet (and its journal), metrics, sink and
// sender. On an error what was opened is closed.
func openLegs(ctx context.Context, cfg Config, p *plan, legs []*leg, sched scheduler.Config, prog *progress, scheduled int) error {
	for i, l := range legs {
		w, err := openRows(l.cfg.Out, cfg.Calibration)
		if err == nil {
			l.o = &outcome{speed: speedOf(cfg.Schedule), started: time.Now(), clientLimit: sched.ClientLimit}
			l.o.metrics = analysis.NewMetrics(analysis.Options{Speed: cfg.Schedule.Speed, SLO: p.slo, CostPerHour: cfg.CostPerHour, GPUs: cfg.GPUs, Calibration: cfg.Calibration})
			l.sk, l.stopWatch, err = l.o.openSink(ctx, l.cfg, p, l.tg, w, sched.Counters, scheduled)
			if err != nil {
				_ = w.Close()
			}
		}
		if err != nil {
			for _, o := range legs[:i] {
				err = errors.Join(err, o.sk.close(), o.stopWatch())
			}
			return fmt.Errorf("endpoint %s: %w", l.ep.Label, err)
		}
		l.s = &sender{client: l.tg.client, chat: p.synth.API == synth.APIChat, sendIDs: cfg.SendIDs,
			keepPrompts: cfg.KeepPrompts, label: l.tg.label, sink: l.sk, progress: prog, retries: cfg.Retries,
			logged: p.logged, verbatim: p.verbatim, capAsMaxTokens: l.tg.eng.capAsMaxTokens(p, l.cfg.Stderr)}
	}
	return nil
}

// runLegs is the timed part of a paired run, as outcome.run is of a single one: the warmup
// to every endpoint, then each endpoint's scraper started and the schedule sent to all.
func runLegs(ctx context.Context, cfg Config, p *plan, legs []*leg, sched scheduler.Config, items []scheduler.Item) (scheduler.Stats, error) {
	send := sendAll(legs)
	if warm, _ := scheduleItems(p.warm, true); len(warm) > 0 {
		wcfg := scheduler.Config{Speed: sched.Speed, MaxConcurrency: sched.MaxConcurrency, ClientLimit: sched.ClientLimit, Counters: &scheduler.Counters{}}
		if _, err := scheduler.Run(ctx, warm, wcfg, send); err != nil {
			return scheduler.Stats{}, err
		}
	}
	for _, l := range legs {
		l.tg.eng.resetCache(ctx, l.cfg) // --reset-cache: cold before the counters' baseline
	}
	for _, l := range legs {
		if l.tg.metricsURL == "" {
			continue
		}
		var err error
		l.scr, err = scrape.Start(ctx, scrape.Config{URL: l.tg.metricsURL, Interval: cfg.MetricsInterval,
			Path: filepath.Join(l.cfg.Out, ServerMetricsFile), Warn: l.cfg.Stderr, Names: l.tg.eng.names()})
		if err != nil {
			stopScrapers(legs)
			return scheduler.Stats{}, fmt.Errorf("endpoint %s: %w", l.ep.Label, err)
		}
	}
	n := preconnectCount(cfg.Preconnect, items, sched.Speed, sched.ClientLimit)
	for _, l := range legs {
		preconnect(ctx, l.tg.client, n, l.ep.Label, cfg.Stderr)
	}
	restoreGC := holdGC(cfg.Stderr)
	stats, err := scheduler.Run(ctx, items, sched, send)
	restoreGC()
	stopScrapers(legs)
	return stats, err
}

// stopScrapers ends every started scraper and hands its figures to its endpoint's summary.
func stopScrapers(legs []*leg) {
	for _, l := range legs {
		if l.scr == nil {
			continue
		}
		res := l.scr.Stop()
		l.scr = nil
		l.o.server = serverCache(res)
		l.o.metrics.AddServerSamples(res.Samples)
		if res.WriteError != nil {
			fmt.Fprintf(l.cfg.Stderr, "replay: server metrics: %v (the summary still has them)\n", res.WriteError)
		}
		l.o.wroteMetrics = res.Scrapes > 0 && res.WriteError == nil
	}
}

// sendAll is the scheduler's SendFunc of a paired run: the item goes to every endpoint at
// once, one on the scheduler's sender goroutine and each other one on a goroutine of its own,
// all at the item's scheduled time (each row's own send time read as its request leaves), and
// it returns when every endpoint has answered. So a session's next turn is released by its
// slowest endpoint's answer: every endpoint gets each turn at the same moment, and the faster
// one's sessions wait on the slower one's. Which endpoint is written to first turns with the
// request's index, so that none is always first.
func sendAll(legs []*leg) scheduler.SendFunc {
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

// finishMulti writes each endpoint's summary and report and prints its table (finish, as a
// single run does), then the paired comparison, and returns A's summary with the worst error,
// or, when every endpoint's run was ok, ErrRequirements when a --require limit failed.
func finishMulti(cfg Config, p *plan, legs []*leg) (*analysis.Summary, error) {
	sums := make([]*analysis.Summary, len(legs))
	errs := make([]error, len(legs))
	for i, l := range legs {
		fmt.Fprintf(cfg.Stdout, "== %s: %s (model %s)\n", l.ep.Label, l.ep.URL, l.tg.model)
		sum, err := finish(l.cfg, p, l.tg, l.o)
		if sum == nil {
			return nil, fmt.Errorf("endpoint %s: %w", l.ep.Label, err)
		}
		sums[i] = sum
		if err != nil {
			errs[i] = fmt.Errorf("endpoint %s: %w", l.ep.Label, err)
		}
		fmt.Fprintln(cfg.Stdout)
	}
	ers, failed := judgeRequirements(cfg.Require, legs, sums)
	if err := comparePaired(cfg, legs, sums, ers); err != nil {
		return sums[0], err
	}
	// A run that failed keeps its own error (its exit code); the requirements are printed.
	if err := worstError(errs); err != nil {
		return sums[0], err
	}
	return sums[0], requirementsError(ers, failed)
}

// worstError is the error a paired run exits with: interrupted over client-bound over too many
// failures, as the verdicts rank (analysis.Summary.judge); nil when every endpoint was ok.
func worstError(errs []error) error {
	for _, target := range []error{ErrInterrupted, ErrClientBound, ErrTooManyFailures} {
		for _, err := range errs {
			if errors.Is(err, target) {
				return err
			}
		}
	}
	return errors.Join(errs...)
}

// labelWriter puts an endpoint's label into the lines written through it: "replay: LABEL: ...".
type labelWriter struct {
	w     io.Writer
	label string
}

func prefixed(w io.Writer, label string) io.Writer { return labelWriter{w, label} }

func (lw labelWriter) Write(b []byte) (int, error) {
	if _, err := fmt.Fprintf(lw.w, "replay: %s: %s", lw.label, strings.TrimPrefix(string(b), "replay: ")); err != nil {
		return 0, err
	}
	return len(b), nil
}

// labels lists the legs' labels for messages.
func labels(legs []*leg) string {
	ls := make([]string, len(legs))
	for i, l := range legs {
		ls[i] = l.ep.Label
	}
	return strings.Join(ls, ", ")
}
