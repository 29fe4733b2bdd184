package synth

import (
	"slices"

	"github.com/llm-replay/replay/trace"
)

// session is what the next turn of a conversation builds on: the previous turn's prompt
// (completions: one run of words; chat: the messages) and that turn's synthetic answer length.
type session struct {
	segs       [][]int32
	roles      []string
	lastIndex  int
	lastOutput int
	hashes     []uint64
	// templated: the turns went through the chat template.
	templated bool
}

// continueSession plans j as the next turn of rec's session when there is one: the previous
// prompt, a synthetic answer of the previous turn's output length, then new user words, so a
// prefix cache sees the conversation grow. When the record's prompt is shorter than the previous
// prompt plus answer (the trace's turns do not nest), it reports restarted and the caller starts
// a fresh prompt.
//
// A record with block hashes is never continued: its hashes say exactly which blocks it shares
// with every earlier prompt (a request log's next turn shares the previous turn's blocks and
// no more, since the logged answer's length need not be what usage reported), and building it
// from them keeps that sharing, where mixing the two models would lose it at every restart.
func (b *Builder) continueSession(j *job, rec trace.Record, target int) (cont, restarted bool, err error) {
	if rec.SessionID == "" || len(rec.BlockHashes) > 0 || len(rec.Media) > 0 {
		return false, false, nil
	}
	s := b.sessions[rec.SessionID]
	if s == nil {
		return false, false, nil
	}
	pool := len(b.v.word)
	answer := appendWords(nil, b.cfg.Seed, domainAnswer, s.lastIndex, s.lastOutput, pool)
	if s.templated != b.templated(rec) {
		return false, true, nil // the conversation went on in another kind of API
	}
	if s.templated {
		fixed, err := b.chatOverhead(len(s.segs) + 2)
		if err != nil {
			return false, false, err
		}
		tools, err := b.toolsOverhead(j.tools)
		if err != nil {
			return false, false, err
		}
		n := target - fixed - tools - len(answer)
		for _, seg := range s.segs {
			n -= len(seg)
		}
		if n < 1 {
			return false, true, nil
		}
		j.segs = append(slices.Clone(s.segs), answer, appendWords(nil, b.cfg.Seed, domainTail, j.req.Index, n, pool))
		j.roles = append(slices.Clone(s.roles), "assistant", "user")
	} else {
		prev := s.segs[0]
		fixed := b.textOverhead()
		n := target - fixed - len(prev) - len(answer)
		if n < 1 {
			return false, true, nil
		}
		words := make([]int32, 0, len(prev)+len(answer)+n)
		words = append(append(words, prev...), answer...)
		words = appendWords(words, b.cfg.Seed, domainTail, j.req.Index, n, pool)
		j.segs = [][]int32{words}
		j.roles = []string{"user"}
	}
	j.req.BlockHashes = s.hashes
	return true, false, nil
}

// rememberSession keeps j's prompt as the base of the session's next turn. The word slices are
// never modified in place afterwards (repairs copy), so sharing them is safe.
func (b *Builder) rememberSession(j *job, rec trace.Record) {
	if rec.SessionID == "" || len(rec.BlockHashes) > 0 || len(rec.Media) > 0 {
		return
	}
	b.sessions[rec.SessionID] = &session{
		segs:       slices.Clone(j.segs),
		roles:      slices.Clone(j.roles),
		lastIndex:  j.req.Index,
		lastOutput: j.req.MaxTokens,
		hashes:     j.req.BlockHashes,
		templated:  chatFamily(j.req.API),
	}
}
