package checks

import (
	"context"
	"fmt"
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
	p, err := newProber(cfg)
	out := make([]Result, 0, len(probes))
	for _, pr := range probes {
		if err != nil {
			out = append(out, Result{Name: pr.name, Fail: 1, Examples: []string{err.Error()}})
			continue
		}
		out = append(out, p.runOne(ctx, pr))
	}
	return out
}

// runOne runs one probe under its timeout, turning a panic into a Fail.
func (p *prober) runOne(ctx context.Context, pr probe) (res Result) {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.timeout())
	defer cancel()
	defer func() {
		if v := recover(); v != nil {
			res = Result{Name: pr.name, Fail: 1, Examples: []string{fmt.Sprintf("checks: the %s probe panicked: %v", pr.name, v)}}
		}
	}()
	res = pr.run(p, ctx)
	if ctx.Err() == context.DeadlineExceeded && res.Fail > 0 {
		res.see(fmt.Sprintf("the probe hit its %v timeout", p.cfg.timeout()))
	}
	return res
}
