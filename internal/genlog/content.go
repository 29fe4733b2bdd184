package genlog

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/llm-replay/replay/chat"
)

// conversation is one chat in progress.
type conversation struct {
	id       int
	messages []chat.Message
	turns    int // turns to go
	// agent conversations (Config.Options) offer tools, and calls wait for their answers.
	tools   json.RawMessage
	set     *toolSet
	pending []chat.ToolCall
}

// line is the JSON shape of one line of the plain log.
type line struct {
	Timestamp any            `json:"timestamp"`
	Request   any            `json:"request"`
	Response  map[string]any `json:"response"`
}

// request draws the next request and writes its line.
func (g *gen) request() (Truth, []byte, error) {
	g.clock = g.clock.Add(time.Duration(g.r.ExpFloat64() * float64(300*time.Millisecond)))
	t := g.content()
	if g.opt != nil {
		return g.optionLine(t)
	}
	return g.plainLine(t)
}

// content draws what the request asks and what it got: a chat's next turn, a popular
// question, a completion or a new chat.
func (g *gen) content() Truth {
	t := Truth{Chat: true, PromptTokens: -1, OutputTokens: -1}
	switch k := g.r.IntN(100); {
	case len(g.active) > 0 && k < 55: // the next turn of a chat in progress
		j := g.r.IntN(len(g.active))
		c := g.active[j]
		if len(c.pending) > 0 {
			g.opt.answerCalls(c)
		} else {
			c.messages = append(c.messages, chat.Message{Role: "user", Content: g.text(5 + g.r.IntN(60))})
		}
		t.Conversation, t.Turn = c.id, countTurns(c.messages)
		t.Messages = append([]chat.Message(nil), c.messages...)
		c.turns--
		if c.turns == 0 {
			g.active = append(g.active[:j], g.active[j+1:]...)
		}
		g.answer(c, &t)
	case k < 70: // a popular question, asked again and again (duplicate prompts)
		t.Conversation = g.convs
		g.convs++
		t.Messages = []chat.Message{{Role: "system", Content: g.systems[0]}, {Role: "user", Content: g.popular[g.r.IntN(len(g.popular))]}}
		t.Response = g.text(10 + g.r.IntN(100))
	case k < 80: // a plain completion, often continuing a shared document
		t.Conversation, t.Chat = g.convs, false
		g.convs++
		t.Prompt = g.text(20 + g.r.IntN(200))
		if g.r.IntN(2) == 0 {
			t.Prompt = g.docs[g.r.IntN(len(g.docs))] + "\n\n" + t.Prompt
		}
		t.Response = g.text(5 + g.r.IntN(80))
	default:
		g.newChat(&t)
	}
	return t
}

// newChat starts a conversation: a shared system prompt (mostly), a question, sometimes a
// long document; with options, sometimes an agent's, with tools.
func (g *gen) newChat(t *Truth) {
	c := &conversation{id: g.convs, turns: g.r.IntN(8)}
	g.convs++
	if g.r.IntN(6) > 0 {
		c.messages = append(c.messages, chat.Message{Role: "system", Content: g.systems[g.r.IntN(len(g.systems))]})
	}
	q := g.text(5 + g.r.IntN(80))
	if g.r.IntN(5) == 0 {
		q = g.docs[g.r.IntN(len(g.docs))] + "\n\n" + q
	}
	c.messages = append(c.messages, chat.Message{Role: "user", Content: q})
	if g.opt != nil {
		g.opt.maybeAgent(c)
	}
	t.Conversation = c.id
	t.Messages = append([]chat.Message(nil), c.messages...)
	g.answer(c, t)
	if c.turns > 0 {
		g.active = append(g.active, c)
	}
}

// answer draws the response to a chat turn and adds it to the conversation: text, or for an
// agent sometimes tool calls, whose answers the next turn brings.
func (g *gen) answer(c *conversation, t *Truth) {
	t.Tools = c.tools
	if c.set != nil && g.opt.callsNow() {
		t.ToolCalls = g.opt.calls(c)
		c.pending = t.ToolCalls
		c.messages = append(c.messages, chat.Message{Role: "assistant", ToolCalls: t.ToolCalls})
		return
	}
	t.Response = g.text(10 + g.r.IntN(150))
	c.messages = append(c.messages, chat.Message{Role: "assistant", Content: t.Response})
}

// timestamp is the clock as RFC3339 or, one line in five, epoch seconds.
func (g *gen) timestamp() any {
	if g.r.IntN(5) == 0 {
		return json.Number(fmt.Sprintf("%d.%09d", g.clock.Unix(), g.clock.Nanosecond()))
	}
	return g.clock.Format(time.RFC3339Nano)
}

// plainLine is the line of the plain log.
func (g *gen) plainLine(t Truth) (Truth, []byte, error) {
	if g.cfg.Chat != nil {
		t.logged()
	}
	var body map[string]any
	if t.Chat {
		body = map[string]any{"model": "qwen3-8b", "messages": t.Messages, "max_tokens": 512, "stream": g.r.IntN(2) == 0}
	} else {
		body = map[string]any{"model": "qwen3-8b", "prompt": t.Prompt, "max_tokens": 256}
	}
	l := line{Request: body, Response: map[string]any{}}
	l.Timestamp = g.timestamp()
	if g.r.IntN(10) == 0 { // a body logged as a JSON string
		raw, err := json.Marshal(body)
		if err != nil {
			return t, nil, err
		}
		l.Request = string(raw)
	}
	if t.Chat {
		l.Response["choices"] = []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": t.Response}, "finish_reason": "stop"}}
	} else {
		l.Response["choices"] = []any{map[string]any{"index": 0, "text": t.Response, "finish_reason": "length"}}
	}
	usage := map[string]any{}
	if g.r.IntN(2) == 0 {
		usage["completion_tokens"] = 5 + g.r.IntN(300)
	}
	if err := g.count(&t, usage); err != nil {
		return t, nil, err
	}
	if len(usage) > 0 {
		l.Response["usage"] = usage
	}
	raw, err := json.Marshal(l)
	return t, raw, err
}
