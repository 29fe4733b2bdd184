package runner

import (
	"context"
	"io"
	"net/http"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/synth"
	"github.com/llm-replay/replay/trace"
)

// study.go is what the study packages (sweep, calibrate, cachestudy) take from a run: the
// records a run of the same settings would replay, read the way Run reads them, and, through
// Config's OnPlan and OnStart, the plan it is about to send and each endpoint once it is up.

// Window is the trace's name and the records cfg selects: the Trace file's window (From, To,
// Limit), or without a Trace the default workload's, a request log counted with cfg's
// tokenizer (the embedded sample's against the simulator, extracted under cfg.Out).
func Window(cfg Config) (string, []trace.Record, error) {
	tok, err := resolveTokenizer(context.Background(), cfg, nil)
	if err != nil {
		return "", nil, err
	}
	name, recs, _, err := resolveTrace(cfg, tok)
	return name, recs, err
}

// Plan is what a run is about to send, for a study that draws over it (Config.OnPlan): the
// trace's name, the window's requests in schedule order and the ideal prefix cache over them
// (nil when the window has no block hashes; its BlockSize 0 when the records' sizes differ).
// A plan built as the run goes (PlanMemory) has requests without prompts and no ideal cache.
type Plan struct {
	Trace    string
	Requests []synth.Request
	Ideal    *analysis.IdealCache
}

// Target is one endpoint of a run once it is up (Config.OnStart): its label (a paired run's,
// else ""), the page its metrics are scraped from ("" for none) and the HTTP client the run
// asks the engine's own endpoints with (its TLS settings and API key).
type Target struct {
	Label      string
	MetricsURL string
	HTTP       *http.Client
}

// onPlan hands the prepared plan to cfg.OnPlan, before anything is asked of the endpoint.
func onPlan(cfg Config, p *plan) error {
	if cfg.OnPlan == nil {
		return nil
	}
	reqs := p.reqs
	if p.stream != nil {
		reqs = recordRequests(p.stream.recs)
	}
	return cfg.OnPlan(Plan{Trace: p.trace, Requests: reqs, Ideal: p.ideal})
}

// onStart hands each started leg to cfg.OnStart, before the checks, the warmup and the first
// request.
func onStart(ctx context.Context, cfg Config, legs []*leg) error {
	if cfg.OnStart == nil {
		return nil
	}
	for _, l := range legs {
		t := Target{Label: l.ep.Label, MetricsURL: l.tg.metricsURL, HTTP: l.tg.eng.http}
		if err := cfg.OnStart(ctx, t); err != nil {
			return l.named(err)
		}
	}
	return nil
}

// Prefixed is w with label after each message's "replay: ", as a paired run marks each
// endpoint's messages: a study marks each of its runs' with it.
func Prefixed(w io.Writer, label string) io.Writer { return prefixed(w, label) }
