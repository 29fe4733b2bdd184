package checks

import (
	"context"
	"fmt"
	"slices"
)

// probe is one check that sends requests.
type probe struct {
	name string
	run  func(*prober, context.Context) Result
}

// probes are Run's checks, in the order of their Results.
var probes = []probe{
	{Streaming, (*prober).streaming},
	{ToolCalls, (*prober).toolCalls},
	{StructuredOutput, (*prober).structuredOutput},
	{Stop, (*prober).stop},
	{MaxTokens, (*prober).maxTokens},
	{Sampling, (*prober).sampling},
}

// Run probes the endpoint of cfg with every check but Overload, one probe after another, each
// bounded by cfg.Timeout, and returns their Results in a fixed order. It never fails as a
// whole: a configuration that cannot be probed, an endpoint that cannot be reached, a probe
// that times out or even panics is a Fail of that check with its reason.
func Run(ctx context.Context, cfg Config) []Result {
	names := make([]string, len(probes))
	for i, pr := range probes {
		names[i] = pr.name
	}
	return run(ctx, cfg, names)
}

// run is Run over the probes named.
func run(ctx context.Context, cfg Config, names []string) []Result {
	p, err := newProber(cfg)
	out := make([]Result, 0, len(names))
	for _, pr := range probes {
		if !slices.Contains(names, pr.name) {
			continue
		}
		if err != nil {
			out = append(out, Result{Name: pr.name, Fail: 1, Examples: []string{err.Error()}})
			continue
		}
		res, timedOut := p.runOne(ctx, pr)
		out = append(out, res)
		if timedOut && res.Pass == 0 {
			// An endpoint that answered nothing of a whole probe in its timeout would hold
			// every further probe as long: they fail at once, quoting this one.
			err = fmt.Errorf("not probed: the %s probe got no answer within its %v timeout (%s)", pr.name, p.cfg.timeout(), first(res.Examples))
		}
	}
	return out
}

// first is the first of examples, "" for none.
func first(examples []string) string {
	if len(examples) == 0 {
		return ""
	}
	return examples[0]
}

// runOne runs one probe under its timeout, turning a panic into a Fail; timedOut says whether
// the timeout ended it.
func (p *prober) runOne(ctx context.Context, pr probe) (res Result, timedOut bool) {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.timeout())
	defer cancel()
	defer func() {
		if v := recover(); v != nil {
			res = Result{Name: pr.name, Fail: 1, Examples: []string{fmt.Sprintf("checks: the %s probe panicked: %v", pr.name, v)}}
		}
	}()
	res = pr.run(p, ctx)
	timedOut = ctx.Err() == context.DeadlineExceeded
	if timedOut && res.Fail > 0 {
		res.See(fmt.Sprintf("the probe hit its %v timeout", p.cfg.timeout()))
	}
	return res, timedOut
}
