package runner

import (
	"fmt"
	"io"

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
	for i := range p.reqs {
		if o := p.reqs[i].Record.Options; o != nil && o.MaxTokensField == client.MaxCompletionTokens {
			n++
		}
	}
	if n > 0 {
		fmt.Fprintf(stderr, "replay: %s reads max_tokens, not max_completion_tokens: the %d logged requests capped with max_completion_tokens are sent with max_tokens\n", s.choice.Engine.Label(), n)
	}
	return n > 0
}
