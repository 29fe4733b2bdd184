package gen

import (
	"math"
	"math/rand/v2"
)

// request is one planned request, before the trace is sorted and its blocks numbered.
type request struct {
	at     float64   // arrival, seconds from the start of generation
	segs   []segment // the prompt's content
	prompt int       // tokens in segs
	output int
	turn   int // index in its unit (session turn, agent step, completion in a burst)
	part   int // index of the shape in the blend
	unit   int // index of the unit in its part, in start order
	// sessioned says the unit's requests are turns of one conversation (shape.sessions).
	sessioned bool
}

// A shape plans traffic of one kind. One call of plan is one user's unit of work starting at
// start: a chat session, a burst of code completions, an agent task. The requests come in
// time order; a unit's later requests get a session id when sessions() says they are turns
// of a conversation (the scheduler then waits for each answer before the next turn).
type shape interface {
	plan(p *planner, start float64) []request
	sessions() bool
	// burst is the Gamma shape of the gaps between unit starts (CV = 1/sqrt(burst)).
	burst() float64
}

// planner is what a shape draws from: the random stream and the counter that gives every
// unique segment (a user message, an answer, a tool result) an id of its own.
type planner struct {
	r    *rand.Rand
	tag  uint64
	next uint64
}

func (p *planner) unique(kind uint64, n int) segment {
	p.next++
	return segment{id: segmentID(p.tag, kind, p.next), n: n}
}

// answerTime estimates how long the model takes to answer a request, which a later turn
// waits for before its think time starts: 0.2 s of overhead, prefill at 8,000 tokens/s and
// decode at 40 tokens/s, a mid-size model on one GPU. It makes the timestamps plausible for
// replayers that send turns open loop (vLLM's, SGLang's); this tool's scheduler waits for
// the real answer and then keeps the whole gap, so there the estimate lengthens the think
// time a little (about 3 s for a median chat turn).
func answerTime(prompt, output int) float64 {
	return 0.2 + float64(prompt)/8000 + float64(output)/40
}

// pool makes n shared segments of one kind (system prompts, repositories, documents),
// numbered by index. Their lengths are fixed quantiles of d, not draws: item i gets quantile
// frac((i+1) x 0.618...), a low-discrepancy sequence, so the few hot items at the head of a
// Zipf popularity spread over the distribution the same way for every seed. A seed varies
// the traffic, not the shape; with drawn lengths, whether the hottest system prompt filled a
// whole 512-token block moved the hit rate by 10 points from seed to seed.
func pool(tag, kind uint64, n int, d logNormal) []segment {
	out := make([]segment, n)
	for i := range out {
		u := math.Mod(float64(i+1)*0.6180339887498949, 1)
		z := math.Sqrt2 * math.Erfinv(2*u-1)
		out[i] = segment{id: segmentID(tag, kind, uint64(i)), n: clamp(d.median*math.Exp(d.sigma*z), d.min, d.max)}
	}
	return out
}

// view is the prompt so far as a request's own slice: later appends to segs never reach it.
func view(segs []segment) []segment { return segs[:len(segs):len(segs)] }
