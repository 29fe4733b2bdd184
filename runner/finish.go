package runner

import (
	"errors"
	"fmt"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/checks"
	"github.com/llm-replay/replay/report"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/scheduler"
)

// finishRun writes a single run's files and prints its table and its endpoint's behaviour
// checks (a paired run's endpoints: finishEndpoints).
func finishRun(cfg Config, p *plan, legs []*leg) (*analysis.Summary, error) {
	l := legs[0]
	sum, err := finish(l.cfg, p, l.tg, l.o)
	if sum != nil {
		err = errors.Join(err, writeChecks(cfg, []checks.Endpoint{analysis.ChecksEndpoint(l.tg.label, l.tg.checks)}))
	}
	return sum, err
}

// finish writes summary.json and report.html, and a calibrated run's queueing.csv (through
// report.WriteRunFiles, atomically), prints the table and turns the run's end into its
// error: interrupted, nothing sent, or more failures than cfg.MaxErrorRate allows.
func finish(cfg Config, p *plan, tg *target, o *outcome) (*analysis.Summary, error) {
	if err := addOverload(cfg.Out, tg.checks); err != nil {
		return nil, err
	}
	info := runInfo(cfg, p, tg, o)
	info.TokenizeCheck = tokenizeCheck(cfg, p, tg, o.stats.NotSent, cfg.Stderr)
	sum, err := report.WriteRunFiles(cfg.Out, o.metrics, info)
	if err != nil {
		return nil, err
	}
	if err := report.WriteTable(cfg.Stdout, sum); err != nil {
		return nil, err
	}
	wrote := "requests.parquet, summary.json, report.html"
	if sum.Run.Calibration != "" {
		wrote += ", " + runfolder.Queueing + ", " + sum.Run.Calibration
	}
	if o.wroteMetrics {
		wrote += ", " + runfolder.ServerMetrics
	}
	fmt.Fprintf(cfg.Stderr, "replay: %s: wrote %s (stopped: %s)\n", cfg.Out, wrote, o.stats.Stop)
	return sum, verdict(sum, o.stats)
}

// runInfo is the run block of the summary from what the run knows (at its end, or so far).
func runInfo(cfg Config, p *plan, tg *target, o *outcome) analysis.RunInfo {
	return analysis.RunInfo{Endpoint: tg.label, Model: tg.model, API: cfg.Client.API, Trace: p.trace, Speed: o.speed,
		MaxConcurrency: cfg.Schedule.MaxConcurrency, Seed: int64(p.synth.Seed), SLO: cfg.SLO.String(), SLOClasses: analysis.ClassLimitsText(cfg.Routing.ClassSLOs), Simulated: tg.simulated,
		StartedAt: o.started.UTC(), Version: cfg.Version, NotSent: int64(o.stats.NotSent),
		IdealCache: p.ideal, ServerCache: o.server, Stop: string(o.stats.Stop),
		Limits: cfg.limits(),
		Input:  p.input, TokenizerMismatch: tg.tokenizerMismatch,
		ClientLimit: o.clientLimit, MaxInFlight: o.stats.MaxInFlight,
		Options: optionsName(p.logged), Body: cfg.Body,
		Engine: tg.eng.summary(o), Checks: tg.checks, Resume: o.resume}
}

// optionsName is the summary's word for whether the logged options were sent.
func optionsName(logged bool) string {
	if logged {
		return OptionsLogged
	}
	return OptionsNone
}

// verdict is the run's error for how it ended, from the summary's judgement: nil when the
// run is valid and its endpoint did not fail past --max-error-rate.
func verdict(sum *analysis.Summary, st scheduler.Stats) error {
	v := sum.Verdict
	if analysis.VerdictIs(v, analysis.VerdictInterrupted) {
		return fmt.Errorf("%w: %d requests finished and were written (%d never sent)", ErrInterrupted, sum.Requests.Total, st.NotSent)
	}
	code := 0
	if j := sum.Judgement; j != nil {
		code = j.Exit
	}
	kinds := map[int]error{analysis.ExitClientBound: ErrClientBound, analysis.ExitLengths: ErrLengths,
		analysis.ExitSkipped: ErrSkipped, analysis.ExitFailed: ErrTooManyFailures}
	if kind, ok := kinds[code]; ok {
		return verdictError{kind, v}
	}
	return nil
}

// verdictError is a run's verdict as its error: the verdict's line, which already names its
// kind, wrapping the kind's error for the exit code.
type verdictError struct {
	kind error
	line string
}

func (e verdictError) Error() string { return e.line }
func (e verdictError) Unwrap() error { return e.kind }

// limits are the thresholds the run is judged by, as summary.json keeps them.
func (cfg Config) limits() *analysis.Limits {
	l := analysis.DefaultLimits()
	l.MaxErrorRate, l.MaxLatenessMS = cfg.MaxErrorRate, max(0, ms(cfg.MaxLateness))
	if cfg.MinExact != nil {
		l.MinExact = cfg.MinExact
	}
	if cfg.MaxSkip != nil {
		l.MaxSkip = cfg.MaxSkip
	}
	return &l
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
