package checks

import (
	"context"
	"fmt"
)

// capTokens is max_tokens in the max_tokens probe, whose prompt asks for far more.
const capTokens = 8

// maxBytesPerToken bounds the bytes one token may plausibly stand for: a BPE token of text
// averages about 4 bytes and rarely exceeds 16 (long words, runs of spaces in code), so an
// answer longer than capTokens×16 bytes ran past the cap whatever usage says.
const maxBytesPerToken = 16

// maxTokens probes max_tokens, streamed (with usage asked for) and not: usage's
// completion_tokens must not exceed it, nor the content be longer than that many tokens
// can plausibly be.
func (p *prober) maxTokens(ctx context.Context) Result {
	res := Result{Name: MaxTokens}
	for _, stream := range []bool{false, true} {
		r, err := p.ask(ctx, request{
			prompt: "Count from 1 to 500, one number after another, separated by spaces.", maxTokens: capTokens, stream: stream,
		})
		if err != nil {
			res.CountFail("", streamed(stream)+err.Error())
			continue
		}
		if reason := judgeCap(r); reason != "" {
			res.CountFail(streamed(stream)+r.describe(), streamed(stream)+reason)
			continue
		}
		seen := fmt.Sprintf("%d bytes", len(r.content))
		if r.usage == nil {
			seen += ", no usage (judged by length alone)"
		} else {
			seen += fmt.Sprintf(", %d completion tokens", r.usage.CompletionTokens)
		}
		res.CountPass(streamed(stream) + seen + fmt.Sprintf(" for max_tokens %d", capTokens))
	}
	return res
}

// judgeCap is why an answer ran past capTokens, "" when it did not.
func judgeCap(r reply) string {
	switch {
	case r.usage != nil && r.usage.CompletionTokens > capTokens:
		return fmt.Sprintf("usage says %d completion tokens for max_tokens %d: %s", r.usage.CompletionTokens, capTokens, quote([]byte(r.content)))
	case len(r.content) > capTokens*maxBytesPerToken:
		return fmt.Sprintf("%d bytes of content for max_tokens %d, more than %d tokens can hold: %s", len(r.content), capTokens, capTokens, quote([]byte(r.content)))
	}
	return ""
}
