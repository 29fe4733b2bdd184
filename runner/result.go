package runner

import (
	"fmt"

	"github.com/llm-replay/replay/analysis"
)

// Result is what a run leaves besides its files: each endpoint's outcome, in the order of
// Config.Endpoints (one, unlabelled, for a single run). The studies that compare endpoints
// (package compare) read it; runner itself compares nothing.
type Result struct {
	Endpoints []EndpointResult
}

// EndpointResult is one endpoint's run: where its files are and what they say.
type EndpointResult struct {
	// Label, URL and Model are the endpoint's, as Config gave them (Label "" for a single
	// run); Model is the one its requests carried.
	Label, URL, Model string
	// Out is the endpoint's folder: Config.Out, or Config.Out/LABEL in a paired run.
	Out string
	// Summary is summary.json's; Metrics the aggregation it came from (closed), whose samples
	// the unpaired comparison reads; Checks the behaviour checks, nil when none ran.
	Summary *analysis.Summary
	Metrics *analysis.Metrics
	Checks  *analysis.Checks
	// Err is the endpoint's verdict as an error (ErrInterrupted, ErrClientBound,
	// ErrTooManyFailures, wrapped and, in a paired run, naming the endpoint); nil when ok.
	Err error
}

// Summary is the first endpoint's summary (a single run's), nil for no result.
func (r *Result) Summary() *analysis.Summary {
	if r == nil || len(r.Endpoints) == 0 {
		return nil
	}
	return r.Endpoints[0].Summary
}

// Err is the error the run exits with: a single run's own, or the worst of a paired run's
// endpoints (worstError).
func (r *Result) Err() error {
	if len(r.Endpoints) == 1 {
		return r.Endpoints[0].Err
	}
	errs := make([]error, len(r.Endpoints))
	for i, e := range r.Endpoints {
		errs[i] = e.Err
	}
	return worstError(errs)
}

// finishLegs writes each endpoint's files and prints its tables (finishRun for a single run,
// finishEndpoints for a paired one). A nil Result is a failure to write them.
func finishLegs(cfg Config, p *plan, legs []*leg) (*Result, error) {
	if len(legs) > 1 {
		return finishEndpoints(cfg, p, legs)
	}
	sum, err := finishRun(cfg, p, legs)
	if sum == nil {
		return nil, err
	}
	return &Result{Endpoints: []EndpointResult{legs[0].result(sum, err)}}, nil
}

// finishEndpoints writes each endpoint's summary and report and prints its table under a
// header naming it, as a single run does (finish).
func finishEndpoints(cfg Config, p *plan, legs []*leg) (*Result, error) {
	res := &Result{}
	for _, l := range legs {
		fmt.Fprintf(cfg.Stdout, "== %s: %s (model %s)\n", l.ep.Label, l.ep.URL, l.tg.model)
		sum, err := finish(l.cfg, p, l.tg, l.o)
		if sum == nil {
			return nil, l.named(err)
		}
		res.Endpoints = append(res.Endpoints, l.result(sum, l.named(err)))
		fmt.Fprintln(cfg.Stdout)
	}
	return res, nil
}

// result is the leg's EndpointResult once finished with sum and its error err.
func (l *leg) result(sum *analysis.Summary, err error) EndpointResult {
	return EndpointResult{Label: l.ep.Label, URL: l.ep.URL, Model: l.tg.model, Out: l.cfg.Out,
		Summary: sum, Metrics: l.o.metrics, Checks: l.tg.checks, Err: err}
}
