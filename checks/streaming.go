package checks

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// streamTokens is the length of the streaming probe's answer: long enough that a server
// decoding token by token takes visibly longer than one read, short enough to be cheap.
const streamTokens = 32

// The streaming judgement. An answer is one burst at the end when its content chunks span
// less than burstSpan of its time AND arrive in fewer than minReads distinct reads (arrivals
// more than readGap apart): a buffering proxy or a server that streams only once it is done.
// Both are needed: a server may batch its chunks into a few reads over a long span (still a
// stream), and a quick answer's chunks may span little of its time but in many reads. An answer that took less than tooFast in all cannot show
// buffering that matters (whatever held it back held it for less than that: zero-cost servers
// answer whole in a millisecond), so it passes, saying so.
const (
	burstSpan = 0.05
	minReads  = 3
	readGap   = time.Millisecond
	tooFast   = 50 * time.Millisecond
)

// streamPrompts are the streaming probe's prompts, one per try. A model may end its answer
// before any content (an end-of-sequence token drawn first: a small or random-weight model
// does, and llama-server samples at temperature 0.8 unless told): such an answer shows
// nothing about streaming, so the probe asks again with the next prompt rather than blame
// the endpoint. The completions API continues raw text, so each prompt ends mid-sentence.
var streamPrompts = []string{
	"Write a short story about a lighthouse keeper, at least a hundred words long.",
	"The lighthouse keeper climbed the stairs at dusk, and as the lamp came alive he",
	"Once upon a time, in a village by the sea, there lived an old fisherman who",
}

// streaming probes whether a streamed answer arrives incrementally.
func (p *prober) streaming(ctx context.Context) Result {
	res := Result{Name: Streaming}
	var ended []string
	for _, prompt := range streamPrompts {
		r, err := p.ask(ctx, request{prompt: prompt, maxTokens: streamTokens, stream: true})
		if err != nil {
			res.CountFail("", err.Error())
			return res
		}
		if len(r.arrivals) == 0 && endedByModel(r.finish) {
			ended = append(ended, r.describe())
			continue
		}
		if len(r.arrivals) == 0 {
			res.CountFail(r.describe(), "no streamed event carried content: "+quote(r.raw))
			return res
		}
		ok, seen := judgeStream(r.arrivals, r.e2e)
		if len(ended) > 0 {
			seen += fmt.Sprintf(" (after %s that ended before any content)", plural(len(ended), "answer"))
		}
		if ok {
			res.CountPass(seen)
		} else {
			res.CountFail(seen, "all content in one burst at the end: "+seen)
		}
		return res
	}
	res.CountFail(strings.Join(ended, "; "), fmt.Sprintf(
		"the model ended each of its %d streamed answers before any content (finish_reason stop), so streaming was never shown", len(ended)))
	return res
}

// endedByModel says whether an answer's finish_reason is the model's own end (its
// end-of-sequence token or a stop string), not a cap or a fault.
func endedByModel(finish string) bool {
	return finish == "stop" || finish == "eos"
}

// judgeStream judges content arrivals (from the send) in an answer of e2e, and says what it
// saw.
func judgeStream(arrivals []time.Duration, e2e time.Duration) (ok bool, seen string) {
	first, last := arrivals[0], arrivals[len(arrivals)-1]
	span := last - first
	reads := distinctReads(arrivals)
	seen = fmt.Sprintf("%s in %s, first at %s, spanning %s of a %s answer",
		plural(len(arrivals), "content chunk"), plural(reads, "read"), ms(first), ms(span), ms(e2e))
	switch {
	case e2e < tooFast:
		return true, seen + " (too fast for buffering to hold anything back)"
	case float64(span) < burstSpan*float64(e2e) && reads < minReads:
		return false, seen
	}
	return true, seen
}

// distinctReads counts groups of arrivals, each group's arrivals within readGap of the one
// before.
func distinctReads(arrivals []time.Duration) int {
	n := 0
	for i, at := range arrivals {
		if i == 0 || at-arrivals[i-1] > readGap {
			n++
		}
	}
	return n
}

// plural is "1 read", "3 reads".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// ms formats a duration in milliseconds, with a decimal below 10 ms.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	if v < 10 {
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.0f ms", v)
}
