package checks

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// reply is what a probe learnt of one answer, streamed or not.
type reply struct {
	status  int
	content string
	calls   []toolCall
	finish  string
	// usage is nil when the answer carried none.
	usage *openai.Usage
	// arrivals are when each streamed event that carried content or tool-call text was read,
	// from the send; e2e is the whole answer's time.
	arrivals []time.Duration
	e2e      time.Duration
	// raw is the start of the body as received, for examples.
	raw []byte
}

// toolCall is one call, its deltas joined when streamed.
type toolCall struct {
	name, arguments string
}

// maxRaw is how much of a body a reply keeps for examples.
const maxRaw = 1 << 10

// keep adds b to raw, up to maxRaw.
func (r *reply) keep(b []byte) {
	if n := maxRaw - len(r.raw); n > 0 {
		r.raw = append(r.raw, b[:min(n, len(b))]...)
	}
}

// readFull reads a non-streamed answer with go-openai's response types.
func readFull(rd io.Reader, chat bool) (reply, error) {
	b, err := io.ReadAll(rd)
	var r reply
	r.keep(b)
	if err != nil {
		return r, err
	}
	var u struct {
		Usage *openai.Usage `json:"usage"` // go-openai's chat response holds usage by value: was it there?
	}
	if err := json.Unmarshal(b, &u); err != nil {
		return r, fmt.Errorf("the body is not JSON: %v: %s", err, quote(b))
	}
	r.usage = u.Usage
	if !chat {
		var c openai.CompletionResponse
		if err := json.Unmarshal(b, &c); err != nil || len(c.Choices) == 0 {
			return r, fmt.Errorf("the body is no completion with a choice: %s", quote(b))
		}
		r.content, r.finish = c.Choices[0].Text, c.Choices[0].FinishReason
		return r, nil
	}
	var c openai.ChatCompletionResponse
	if err := json.Unmarshal(b, &c); err != nil || len(c.Choices) == 0 {
		return r, fmt.Errorf("the body is no chat completion with a choice: %s", quote(b))
	}
	ch := c.Choices[0]
	r.content, r.finish = ch.Message.Content, string(ch.FinishReason)
	for _, tc := range ch.Message.ToolCalls {
		r.calls = append(r.calls, toolCall{name: tc.Function.Name, arguments: tc.Function.Arguments})
	}
	return r, nil
}

// joinCalls adds streamed tool-call deltas to the calls so far: a delta's index says which call
// it continues (OpenAI sends the name with the first, the arguments in pieces).
func joinCalls(calls []toolCall, deltas []openai.ToolCall) []toolCall {
	for _, d := range deltas {
		i := len(calls) - 1
		if d.Index != nil {
			i = *d.Index
		} else if d.ID != "" || i < 0 {
			i = len(calls) // no index: a new id starts a call
		}
		if i < 0 || i > 64 {
			continue // an index no probe's answer needs
		}
		for len(calls) <= i {
			calls = append(calls, toolCall{})
		}
		if d.Function.Name != "" {
			calls[i].name = d.Function.Name
		}
		calls[i].arguments += d.Function.Arguments
	}
	return calls
}

// describe is a short account of a reply for Seen.
func (r reply) describe() string {
	var parts []string
	if r.content != "" {
		parts = append(parts, fmt.Sprintf("%d bytes of content", len(r.content)))
	}
	if len(r.calls) > 0 {
		parts = append(parts, plural(len(r.calls), "tool call"))
	}
	if r.finish != "" {
		parts = append(parts, "finish_reason "+r.finish)
	}
	if len(parts) == 0 {
		return "an empty answer"
	}
	return strings.Join(parts, ", ")
}
