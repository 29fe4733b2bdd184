package tokcheck

import (
	"context"

	"github.com/llm-replay/replay/analysis"
)

// MaxSample is how many prompts a run checks at most: a streamed plan does not keep every
// body, and a few thousand tokenize calls take seconds, not minutes, after the run.
const MaxSample = 2000

// Sample is the indexes of an evenly spaced sample of up to max of n items, in order, first
// and last included; all of them when n <= max.
func Sample(n, max int) []int {
	if n <= 0 || max <= 0 {
		return nil
	}
	if n <= max {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := make([]int, max)
	for k := range out {
		if max == 1 {
			break
		}
		out[k] = k * (n - 1) / (max - 1)
	}
	return out
}

// Check asks s for each prompt's count and compares it with replay's; sent is how many
// prompts the run sent (prompts may be a sample of them). It stops at ctx's end.
func Check(ctx context.Context, s Server, prompts []Prompt, sent int) *analysis.TokenizeCheck {
	r := &analysis.TokenizeCheck{Dialect: string(s.Dialect), Sent: sent}
	for _, p := range prompts {
		if ctx.Err() != nil {
			break
		}
		r.Checked++
		got, err := s.Count(ctx, p)
		switch {
		case err != nil:
			r.Failed++
			r.Note(analysis.TokenizeDiff{ID: p.ID, Replay: p.Want, Err: err.Error()})
		case got == p.Want:
			r.Equal++
		default:
			r.Note(analysis.TokenizeDiff{ID: p.ID, Replay: p.Want, Server: got})
		}
	}
	return r
}
