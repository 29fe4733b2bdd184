package runner

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/llm-replay/replay/client"
)

// capAsMaxTokens reports whether the run's logged max_completion_tokens caps go as max_tokens
// (an engine that reads only max_tokens would otherwise run them unbounded), and says so once
// with how many requests it changes: the body then differs from the log in that name only.
func (s *engineState) capAsMaxTokens(p *plan, stderr io.Writer) bool {
	if s == nil || !p.logged || s.choice.Engine.ReadsMaxCompletionTokens() {
		return false
	}
	n := 0
	for i := range p.count() {
		if o := p.record(i).Options; o != nil && o.MaxTokensField == client.MaxCompletionTokens {
			n++
		}
	}
	if n > 0 {
		fmt.Fprintf(stderr, "replay: %s reads max_tokens, not max_completion_tokens: the %d logged requests capped with max_completion_tokens are sent with max_tokens\n", s.choice.Engine.Label(), n)
	}
	return n > 0
}

// unforcedAPIs are the APIs of this run's requests whose engine drops the forcing fields there
// (engine.ForcesOn), said once each with how many requests go unforced: their output length
// is the engine's, and fidelity counts them as unforced rather than miss their length.
func (s *engineState) unforcedAPIs(p *plan, def string, stderr io.Writer) map[string]bool {
	if s == nil || !s.info.Forced {
		return nil
	}
	n := map[string]int{}
	for i := range p.count() {
		if a := p.apiOf(i, def); !s.choice.Engine.ForcesOn(a) {
			n[a]++
		}
	}
	if len(n) == 0 {
		return nil
	}
	out := map[string]bool{}
	for _, a := range slices.Sorted(maps.Keys(n)) {
		out[a] = true
		fmt.Fprintf(stderr, "replay: %s drops the forcing fields on its %s API: its %d requests there are sent unforced, their output lengths the engine's\n", s.choice.Engine.Label(), a, n[a])
	}
	return out
}
