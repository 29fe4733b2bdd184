package requestlog

import (
	"crypto/sha256"
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/llm-replay/replay/chat"
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
	next  map[digest]turnRef
	roots int
}

func newSessions() *sessions { return &sessions{next: map[digest]turnRef{}} }

// chatDigests is what sessions needs of a chat request: the digests of its message prefixes,
// and of its messages followed by its answer. Computing them needs no other line, so the
// reader does it on all cores and assign, which runs in log order, only probes a map.
type chatDigests struct {
	prefix  []digest // prefix[j]: the user and msgs[:j], for j = 0..len(msgs)
	answers []digest // msgs and the answer; also the answer without its thinking, if any
}

// digester computes chatDigests, reusing one buffer. It is not safe for concurrent use.
type digester struct{ buf []byte }

// digest returns the chat digests of a request, each prefix chained on the previous so the
// whole list costs one pass over its bytes.
func (g *digester) digest(user string, msgs []chat.Message, answer string, hasAnswer bool) chatDigests {
	h := sha256.Sum256([]byte("user\x00" + user))
	var d digest
	copy(d[:], h[:])
	c := chatDigests{prefix: make([]digest, 0, len(msgs)+1)}
	c.prefix = append(c.prefix, d)
	for _, m := range msgs {
		d = g.extend(d, m.Role, m.Content)
		c.prefix = append(c.prefix, d)
	}
	if hasAnswer {
		c.answers = append(c.answers, g.extend(d, "assistant", answer))
		// Clients of reasoning models send the answer back without its thinking.
		if _, after, ok := strings.Cut(answer, "</think>"); ok {
			c.answers = append(c.answers, g.extend(d, "assistant", strings.TrimLeft(after, "\n")))
		}
	}
	return c
}

// assign returns the session and turn of a chat request with msgs (digested into d), and
// remembers its answer (when known) for the next turn to find.
func (s *sessions) assign(msgs []chat.Message, d chatDigests) (string, int) {
	ref, found := turnRef{}, false
	for j := len(msgs); j >= 1 && !found; j-- {
		if msgs[j-1].Role == "assistant" {
			ref, found = s.next[d.prefix[j]]
		}
	}
	if found {
		ref.turn++
	} else {
		ref = s.newRoot()
	}
	for _, a := range d.answers {
		s.next[a] = ref
	}
	return ref.session, ref.turn
}

// newRoot starts a conversation.
func (s *sessions) newRoot() turnRef {
	s.roots++
	return turnRef{session: "s" + strconv.Itoa(s.roots)}
}

// extend is one step of the digest chain: d, then the message's role and content, each
// length-prefixed.
func (g *digester) extend(d digest, role, content string) digest {
	g.buf = append(g.buf[:0], d[:]...)
	g.buf = binary.BigEndian.AppendUint64(g.buf, uint64(len(role)))
	g.buf = append(g.buf, role...)
	g.buf = binary.BigEndian.AppendUint64(g.buf, uint64(len(content)))
	g.buf = append(g.buf, content...)
	h := sha256.Sum256(g.buf)
	var out digest
	copy(out[:], h[:])
	return out
}
