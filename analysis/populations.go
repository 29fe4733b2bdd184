package analysis

import (
	"sort"

	"github.com/llm-replay/replay/results"
)

// populations.go sets the run's populations side by side: requests sent streamed or not,
// crossed with tools, a JSON response_format or plain (results.Population). Their figures
// differ by design (a non-streamed answer has no first token to time, guided decoding is
// slower per token), so one population's latencies must not hide another's.

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
}

// popMetrics aggregates one population's rows.
type popMetrics struct {
	requests, ok, failed, cancelled int64
	outputTokens                    int64
	ttft, e2e                       *latency
}

// pop is the aggregation of r's population, nil for a row without one (an older file's).
func (m *Metrics) pop(r *results.Row) *popMetrics {
	if r.Population == "" {
		return nil
	}
	p := m.pops[r.Population]
	if p == nil {
		p = &popMetrics{ttft: newLatency(), e2e: newLatency()}
		m.pops[r.Population] = p
	}
	return p
}

// addOK counts one successful request of the population: its e2e, its TTFT when streamed,
// its output.
func (p *popMetrics) addOK(r *results.Row, out int64) {
	p.ok++
	p.outputTokens += out
	p.e2e.recordNS(r.DoneNS - r.SentNS)
	if r.Streamed() && r.FirstTokenNS > 0 {
		p.ttft.recordNS(r.FirstTokenNS - r.SentNS)
	}
}

// populations are the summary's figures per population; nil when no row named one.
func (m *Metrics) populations(durS float64) map[string]Population {
	if len(m.pops) == 0 {
		return nil
	}
	out := make(map[string]Population, len(m.pops))
	for name, p := range m.pops {
		pop := Population{Requests: p.requests, OK: p.ok, Failed: p.failed, CancelledAsLogged: p.cancelled,
			E2E: p.e2e.dist(), OutputTokS: rate(float64(p.outputTokens), durS), OutputTokens: p.outputTokens}
		if streamedPopulation(name) {
			d := p.ttft.dist()
			pop.TTFT = &d
		}
		out[name] = pop
	}
	return out
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
