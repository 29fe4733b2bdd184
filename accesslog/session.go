package accesslog

import (
	"crypto/sha256"
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/llm-replay/replay/synth"
)

// digest identifies a message list (and the user who sent it).
type digest [16]byte

// turnRef is where a conversation stood after a request: its session and turn.
type turnRef struct {
	session string
	turn    int
}

// sessions recovers conversations from chat requests when the log has no session field: a
// request whose messages are an earlier request's messages followed by that request's answer
// (and then more) is that conversation's next turn. Each request registers the digest of its
// messages plus its answer; a later request looks up the digests of its own prefixes that end
// in an assistant message, longest first, so finding the parent is one map probe per assistant
// message, not a scan of the log. Memory: one entry per chat request with a logged answer (two
// when the answer starts with a reasoning model's thinking, which clients drop from the history).
type sessions struct {
	next    map[digest]turnRef
	roots   int
	scratch []digest
}

func newSessions() *sessions { return &sessions{next: map[digest]turnRef{}} }

// prefixDigests returns d[j] for j = 0..len(msgs): the digest of user and msgs[:j], each step
// chained on the previous so the whole list costs one pass over its bytes.
func prefixDigests(dst []digest, user string, msgs []synth.Message) []digest {
	h := sha256.Sum256([]byte("user\x00" + user))
	var d digest
	copy(d[:], h[:])
	dst = append(dst[:0], d)
	for _, m := range msgs {
		d = extend(d, m)
		dst = append(dst, d)
	}
	return dst
}

// assign returns the session and turn of a chat request with msgs, sent by user, and
// remembers its answer (when known) for the next turn to find.
func (s *sessions) assign(user string, msgs []synth.Message, answer string, hasAnswer bool) (string, int) {
	s.scratch = prefixDigests(s.scratch, user, msgs)
	ref, found := turnRef{}, false
	for j := len(msgs); j >= 1 && !found; j-- {
		if msgs[j-1].Role == "assistant" {
			ref, found = s.next[s.scratch[j]]
		}
	}
	if found {
		ref.turn++
	} else {
		ref = s.newRoot()
	}
	if hasAnswer {
		s.next[extend(s.scratch[len(msgs)], synth.Message{Role: "assistant", Content: answer})] = ref
		// Clients of reasoning models send the answer back without its thinking.
		if _, after, ok := strings.Cut(answer, "</think>"); ok {
			s.next[extend(s.scratch[len(msgs)], synth.Message{Role: "assistant", Content: strings.TrimLeft(after, "\n")})] = ref
		}
	}
	return ref.session, ref.turn
}

// newRoot starts a conversation.
func (s *sessions) newRoot() turnRef {
	s.roots++
	return turnRef{session: "s" + strconv.Itoa(s.roots)}
}

// extend is one step of prefixDigests.
func extend(d digest, m synth.Message) digest {
	buf := make([]byte, 0, len(d)+16+len(m.Role)+len(m.Content))
	buf = append(buf, d[:]...)
	buf = binary.BigEndian.AppendUint64(buf, uint64(len(m.Role)))
	buf = append(buf, m.Role...)
	buf = binary.BigEndian.AppendUint64(buf, uint64(len(m.Content)))
	buf = append(buf, m.Content...)
	h := sha256.Sum256(buf)
	var out digest
	copy(out[:], h[:])
	return out
}
