package runner

import (
	"fmt"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/scheduler"
)

// finish writes summary.json and report.html (through analysis.WriteRunFiles, atomically),
// prints the table and turns the run's end into its error: interrupted, nothing sent, or more
// failures than cfg.MaxErrorRate allows.
func finish(cfg Config, p *plan, tg *target, o *outcome) (*analysis.Summary, error) {
	info := analysis.RunInfo{Endpoint: tg.label, Model: tg.model, API: cfg.API, Trace: p.trace, Speed: o.speed,
		MaxConcurrency: cfg.Schedule.MaxConcurrency, Seed: int64(p.synth.Seed), SLO: cfg.SLO, Simulated: tg.simulated,
		StartedAt: o.started.UTC(), Version: cfg.Version, NotSent: int64(o.stats.NotSent),
		IdealCache: p.ideal, ServerCache: o.server}
	sum, err := analysis.WriteRunFiles(cfg.Out, o.metrics, info)
	if err != nil {
		return nil, err
	}
	if err := analysis.WriteTable(cfg.Stdout, sum); err != nil {
		return nil, err
	}
	wrote := "requests.parquet, summary.json, report.html"
	if o.wroteMetrics {
		wrote += ", " + ServerMetricsFile
	}
	fmt.Fprintf(cfg.Stderr, "replay: %s: wrote %s (stopped: %s)\n", cfg.Out, wrote, o.stats.Stop)
	return sum, verdict(cfg, sum, o.stats)
}

// verdict is the run's error for how it ended; nil when it completed within MaxErrorRate.
func verdict(cfg Config, sum *analysis.Summary, st scheduler.Stats) error {
	if st.Stop == scheduler.StopCanceled {
		return fmt.Errorf("%w: %d requests finished and were written (%d never sent)", ErrInterrupted, sum.Requests.Total, st.NotSent)
	}
	if sum.Requests.Total == 0 {
		return fmt.Errorf("%w: no request was sent", ErrTooManyFailures)
	}
	if rate := float64(sum.Requests.Failed) / float64(sum.Requests.Total); rate > cfg.MaxErrorRate {
		return fmt.Errorf("%w: %d of %d requests failed (%.1f%%, over --max-error-rate %.1f%%)",
			ErrTooManyFailures, sum.Requests.Failed, sum.Requests.Total, 100*rate, 100*cfg.MaxErrorRate)
	}
	return nil
}
