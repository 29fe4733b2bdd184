package runner

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/llm-replay/replay/synth"
	"github.com/llm-replay/replay/trace"
)

// dryRun is Config.DryRun's end: everything before the first send has been done (the trace
// read and its window, the tokenizer, the prompts built or the plan laid out, each endpoint's
// preflight, engine and forcing probe, the behaviour checks); what would be sent is written
// to cfg.Stdout, and nothing more is.
func dryRun(cfg Config, p *plan, legs []*leg) error {
	w := cfg.Stdout
	recs, prompt, output := dryRunWindow(p)
	var span time.Duration
	apis := map[string]int{}
	for i := range recs {
		span = max(span, time.Duration(recs[i].Timestamp))
		apis[string(synth.RecordAPI(recs[i], p.synth.API))]++
	}
	speed := speedOf(cfg.Schedule)
	fmt.Fprintf(w, "dry run: nothing was sent\n")
	fmt.Fprintf(w, "  trace      %s: %d requests over %s of trace time, %s at %gx (%d warmup first)\n",
		p.trace, len(recs), span.Round(time.Millisecond), time.Duration(float64(span)/speed).Round(time.Millisecond), speed, len(p.warm))
	fmt.Fprintf(w, "  tokens     %d prompt, %d output at most (%s)\n", prompt, output, apiCounts(apis))
	fmt.Fprintf(w, "  tokenizer  %s\n", p.tokPath)
	writeModels(w, recs, cfg.Routing.ModelMap, p)
	fmt.Fprintf(w, "  prompts    %s\n", planNote(p, planMemory(recs, p.synth.API)))
	for _, l := range legs {
		writeLeg(w, l)
	}
	return nil
}

// dryRunWindow is the window's records and the prompt and output tokens it asks for: the
// built requests' targets, or for a plan built as the run goes (whose records alone are held)
// the records' own lengths.
func dryRunWindow(p *plan) (recs []trace.Record, prompt, output int64) {
	if p.stream != nil {
		for i := range p.stream.recs {
			prompt += int64(p.stream.recs[i].PromptTokens)
			output += int64(max(1, p.stream.recs[i].OutputTokens))
		}
		return p.stream.recs, prompt, output
	}
	recs = make([]trace.Record, len(p.reqs))
	for i := range p.reqs {
		prompt += int64(p.reqs[i].TargetPromptTokens)
		output += int64(p.reqs[i].MaxTokens)
		recs[i] = p.reqs[i].Record
	}
	return recs, prompt, output
}

// planNote says how the prompts are held: built before the run, or as it goes.
func planNote(p *plan, need int64) string {
	mib := func(n int64) string {
		if n < 1<<20 {
			return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
		}
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	switch {
	case p.verbatim:
		return "the logged bodies, sent verbatim"
	case p.stream != nil:
		return fmt.Sprintf("about %s: built as the run goes, at most %s ahead of their sends (--plan-memory)", mib(need), mib(p.stream.budget))
	}
	return fmt.Sprintf("about %s, built and verified before the run", mib(need))
}

// writeLeg is one endpoint's line: where, which model, the engine and forcing it was found to
// have, and the behaviour checks' verdict.
func writeLeg(w io.Writer, l *leg) {
	name := l.tg.label
	if l.ep.Label != "" {
		name = l.ep.Label + " " + name
	}
	fmt.Fprintf(w, "  endpoint   %s, model %q", name, l.tg.model)
	if e := l.tg.eng; e != nil {
		fmt.Fprintf(w, ", engine %s, %s", e.choice.Engine, e.info.Forcing)
	}
	if c := l.tg.checks; c != nil {
		verdict := "all passed"
		if len(c.Failed) > 0 {
			verdict = "failed: " + strings.Join(c.Failed, ", ")
		}
		fmt.Fprintf(w, ", checks %s %s", c.Level, verdict)
	}
	fmt.Fprintln(w)
}

// apiCounts is "chat 10, completions 2", in name order.
func apiCounts(m map[string]int) string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %d", n, m[n])
	}
	return strings.Join(parts, ", ")
}
