package checks

import (
	"context"
	"strings"
)

// stopWord is the stop string: one word a model is unlikely to write unasked, which the
// prompt asks for, so that a server that ignores stop shows it.
const stopWord = "STOPWORD"

// stop probes stop sequences, streamed and not: the output must not contain the stop string
// (a server honouring stop ends before it and leaves it out). A model that never writes the
// word passes too; the check fails only on evidence.
func (p *prober) stop(ctx context.Context) Result {
	res := Result{Name: Stop}
	for _, stream := range []bool{false, true} {
		r, err := p.ask(ctx, request{
			prompt:    "Repeat the word " + stopWord + " ten times, separated by spaces, then write one sentence about the sea.",
			maxTokens: 48, stream: stream, stop: []string{stopWord},
		})
		if err != nil {
			res.CountFail("", streamed(stream)+err.Error())
			continue
		}
		if i := strings.Index(r.content, stopWord); i >= 0 {
			res.CountFail(streamed(stream)+r.describe(), streamed(stream)+"the output holds the stop string "+stopWord+": "+quote([]byte(r.content[max(0, i-40):])))
			continue
		}
		res.CountPass(streamed(stream) + r.describe() + ", no " + stopWord)
	}
	return res
}
