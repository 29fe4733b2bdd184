package requestlog

import (
	"slices"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/trace"
)

// chainLink is where a Responses conversation stood after a logged answer: its session and
// turn, and the conversation a request continuing it (previous_response_id) starts from.
type chainLink struct {
	session string
	turn    int
	// conv is the request's conversation without its instructions, then its answer.
	conv []chat.Message
	// media are the images conv holds (the request's record's, its chain's before its own):
	// a request continuing it sends them again, as vLLM renders them again.
	media []trace.MediaPart
}

// chains maps logged Responses answer ids to their links. It grows by one link per logged
// Responses answer with an id (each holding its conversation's messages, whose text the
// entries share).
type chains struct{ byID map[string]chainLink }

func newChains() *chains { return &chains{byID: map[string]chainLink{}} }

// continued builds a chained request's conversation, as vLLM does
// (construct_input_messages at vllm-project/vllm@d0ac57910c16de107f5758d0e530b638d8b0f91b:
// vllm/entrypoints/openai/responses/utils.py; llama.cpp refuses such requests): its own
// instructions, the previous request's conversation without that request's instructions
// (the API does not carry them over; vLLM has come to drop every system message there), the
// previous answer as an assistant turn (its text and function calls; vLLM keeps the text only,
// and skips reasoning, as the reader does), then its input. It returns the link continued.
func (c *chains) continued(e *entry, name string) (chainLink, []chat.Message, error) {
	link, ok := c.byID[e.prevID]
	if !ok {
		return chainLink{}, nil, bad(name+".previous_response_id", "%q: no earlier line's logged response has this id", e.prevID)
	}
	input := e.messages
	msgs := make([]chat.Message, 0, len(link.conv)+len(input))
	if e.instructions {
		msgs, input = append(msgs, input[0]), input[1:]
	}
	msgs = append(append(msgs, link.conv...), input...)
	return link, msgs, nil
}

// remember records a Responses answer's link: the request's conversation msgs (with its
// instructions when e says it has them) and its logged answer. An id logged twice names the
// later answer, the one a request after both continues.
func (c *chains) remember(e *entry, msgs []chat.Message, media []trace.MediaPart, session string, turn int) {
	if e.respID == "" {
		return
	}
	if e.instructions && len(msgs) > 0 {
		msgs = msgs[1:]
	}
	conv := slices.Clip(msgs)
	if e.output != nil {
		conv = append(conv, *e.output)
	}
	c.byID[e.respID] = chainLink{session: session, turn: turn, conv: conv, media: slices.Clip(media)}
}

// chainedMedia is a chained request's images: the conversation's before it (link's), then its
// own, their messages numbered after the earlier ones' so each message's parts stay apart.
func chainedMedia(link chainLink, own []trace.MediaPart) ([]trace.MediaPart, int) {
	if len(link.media) == 0 {
		return own, 0
	}
	out := append(slices.Clone(link.media), own...)
	next, tokens := 0, 0
	for _, m := range link.media {
		next = max(next, m.Message+1)
		tokens += m.Tokens
	}
	for i := len(link.media); i < len(out); i++ {
		out[i].Message += next
	}
	return out, tokens
}
