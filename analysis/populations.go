package analysis

import (
	"cmp"
	"maps"
	"slices"
	"sort"

	"github.com/llm-replay/replay/results"
)

// populations.go sets the run's populations side by side: requests sent streamed or not,
// crossed with tools, a JSON response_format or plain (results.Population), and the APIs
// the requests went to (chat, completions, responses, messages, embeddings: results.Row's
// API). Their figures differ by design (a non-streamed answer has no first token to time,
// guided decoding is slower per token, an embedding has no output at all), so one
// population's latencies must not hide another's.

// Population is one population's figures in summary.json. TTFT is for streamed requests only
// (nil for non-streamed ones, measured end to end); OutputTokS is its output over the run's
// measured span, so the populations' rates add up to the run's.
type Population struct {
	Requests          int64   `json:"requests"`
	OK                int64   `json:"ok"`
	Failed            int64   `json:"failed"`
	CancelledAsLogged int64   `json:"cancelled_as_logged,omitempty"`
	TTFT              *Dist   `json:"ttft_ms,omitempty"`
	E2E               Dist    `json:"e2e_ms"`
	OutputTokS        float64 `json:"output_tok_s"`
	OutputTokens      int64   `json:"output_tokens"`
	// PromptTokens are its successful requests' prompt tokens (the server's count, else the
	// target): an embeddings population's only work.
	PromptTokens int64 `json:"prompt_tokens"`
}

// popMetrics aggregates one population's rows.
type popMetrics struct {
	requests, ok, failed, cancelled int64
	outputTokens, promptTokens      int64
	ttft, e2e                       *latency
	streamed                        bool // some of its requests were streamed
}

// groups are the aggregations r counts in: its population's and its API's, each left out
// for a row without one (an older file's), and its media population and bucket (not in a
// class's or model's Metrics, whose Group has no media figures).
func (m *Metrics) groups(r *results.Row) []*popMetrics {
	var out []*popMetrics
	mediaPop, bucket := "", ""
	if !m.inGroup {
		mediaPop, bucket = MediaPopulation(r), MediaTokenBucket(r)
	}
	for _, g := range [...]struct {
		of   map[string]*popMetrics
		name string
	}{{m.pops, r.Population}, {m.apis, r.API}, {m.media.pops, mediaPop}, {m.media.buckets, bucket}} {
		if g.name == "" {
			continue
		}
		p := g.of[g.name]
		if p == nil {
			p = &popMetrics{ttft: newLatency(), e2e: newLatency()}
			g.of[g.name] = p
		}
		out = append(out, p)
	}
	return out
}

// addOK counts one successful request of the population: its e2e, its TTFT when streamed,
// its output.
func (p *popMetrics) addOK(r *results.Row, out int64) {
	p.ok++
	p.outputTokens += out
	p.promptTokens += int64(cmp.Or(max(r.PromptTokens, 0), r.TargetPromptTokens))
	p.e2e.recordNS(r.DoneNS - r.SentNS)
	if r.Streamed() && r.FirstTokenNS > 0 {
		p.streamed = true
		p.ttft.recordNS(r.FirstTokenNS - r.SentNS)
	}
}

// populations are the summary's figures per population; nil when no row named one.
func (m *Metrics) populations(durS float64) map[string]Population {
	return figures(m.pops, durS, streamedPopulation)
}

// apiPopulations are the summary's figures per API the requests went to; nil when no row
// named one. TTFT is given for an API some of whose answers streamed.
func (m *Metrics) apiPopulations(durS float64) map[string]Population {
	return figures(m.apis, durS, func(name string) bool { return m.apis[name].streamed })
}

// figures turns aggregations into their summary figures, TTFT for those streamed says.
func figures(of map[string]*popMetrics, durS float64, streamed func(string) bool) map[string]Population {
	if len(of) == 0 {
		return nil
	}
	out := make(map[string]Population, len(of))
	for name, p := range of {
		pop := Population{Requests: p.requests, OK: p.ok, Failed: p.failed, CancelledAsLogged: p.cancelled,
			E2E: p.e2e.dist(), OutputTokS: rate(float64(p.outputTokens), durS), OutputTokens: p.outputTokens,
			PromptTokens: p.promptTokens}
		if streamed(name) {
			d := p.ttft.dist()
			pop.TTFT = &d
		}
		out[name] = pop
	}
	return out
}

// APINames are a summary's APIs in results.APIs' order, any other name after them.
func APINames(apis map[string]Population) []string {
	var names []string
	for _, a := range results.APIs {
		if _, ok := apis[a]; ok {
			names = append(names, a)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(apis)) {
		if !slices.Contains(results.APIs, k) {
			names = append(names, k)
		}
	}
	return names
}

// streamedPopulation reports whether a population's requests were streamed.
func streamedPopulation(name string) bool {
	r := results.Row{Population: name}
	return r.Streamed()
}

// PopulationNames are a summary's populations in order: streamed first, then by name.
func PopulationNames(pops map[string]Population) []string {
	names := make([]string, 0, len(pops))
	for k := range pops {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := streamedPopulation(names[i]), streamedPopulation(names[j])
		if a != b {
			return a
		}
		return names[i] < names[j]
	})
	return names
}
