package sim

import "math"

// noPause is a chunker's pause when nothing interrupts the answer.
const noPause = math.MaxInt

// noByteLimit lets appendReady append every ready chunk at once.
const noByteLimit = math.MaxInt

// chunker turns generated tokens into SSE chunks of TokensPerChunk tokens, each written by the
// answer's framing, and stops at the point where a fault interrupts the answer, the same way
// for the engine and zero-cost mode.
// The choices of an n>1 answer advance in lockstep (the engine generates them together), so
// each step of the chunker appends one chunk per choice, in index order, as vLLM streams them:
// every chunk carries one choice and its index.
type chunker struct {
	a       *answer
	per     int // tokens per chunk
	choices int // n
	total   int // the length of each choice (max_tokens for the filler)
	written int // tokens of each choice already appended
	// pause is the token count (of each choice) after which the answer stops for its fault:
	// half-way for a break, after the first chunk for a first-token stall, noPause otherwise.
	pause int
}

// newChunker returns the chunker of an answer of choices choices of total tokens under fault f.
func (s *Server) newChunker(a *answer, choices, total int, f Fault) chunker {
	c := chunker{a: a, per: s.cfg.TokensPerChunk, choices: choices, total: total, pause: noPause}
	switch {
	case f == FaultBreak:
		c.pause = total / 2
	case s.stallsAfterFirstToken(f):
		c.pause = 1 // any first chunk reaches it, so exactly one chunk per choice goes out
	}
	return c
}

// appendReady appends the chunks that ready generated tokens (of each choice) fill (a short last
// chunk only once all are ready), until the pause or until b holds at least byteLimit bytes.
func (c *chunker) appendReady(b []byte, ready, byteLimit int) []byte {
	ready = min(ready, c.total)
	for !c.paused() && len(b) < byteLimit && (ready-c.written >= c.per || c.thinkingReady(ready) || (ready == c.total && ready > c.written)) {
		m := min(c.per, ready-c.written)
		if t := c.a.out.thinking; c.written < t {
			m = min(m, t-c.written) // no chunk holds thinking and answer both
		}
		first, last := c.written == 0, c.written+m == c.total
		for i := range c.choices {
			b = c.a.fr.appendChunk(b, i, c.written, m, first, last)
		}
		c.written += m
	}
	return b
}

// thinkingReady reports whether the last tokens of the thinking are ready: they go out as a
// short chunk of their own rather than wait for the answer's first tokens.
func (c *chunker) thinkingReady(ready int) bool {
	t := c.a.out.thinking
	return c.written < t && ready >= t
}

// paused reports whether the answer has reached its fault's pause.
func (c *chunker) paused() bool { return c.written >= c.pause }

// complete reports whether every token has been appended.
func (c *chunker) complete() bool { return c.written == c.total }
