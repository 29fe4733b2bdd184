package checks

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// maxLine bounds one SSE line; a probe's events are small.
const maxLine = 1 << 20

// readStream reads an SSE answer event by event, timing each event that carries content or
// tool-call text as its line is read: events that came in one read of the socket get the same
// time, to within the parsing of them, which is what tells a stream from a burst.
func readStream(rd io.Reader, start time.Time, chat bool) (reply, error) {
	var r reply
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		line := sc.Bytes()
		r.keep(line) // never append to line: it is the scanner's buffer
		r.keep([]byte{'\n'})
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue // blank separators, comments, event: and id: lines
		}
		data = bytes.TrimSpace(data)
		if string(data) == "[DONE]" {
			return r, nil
		}
		at := time.Since(start)
		if err := r.event(data, chat, at); err != nil {
			return r, err
		}
	}
	if err := sc.Err(); err != nil {
		return r, err
	}
	return r, errors.New("the stream ended without data: [DONE]")
}

// event adds one data payload to r.
func (r *reply) event(data []byte, chat bool, at time.Duration) error {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &e); err != nil {
		return fmt.Errorf("an event is not JSON: %s", quote(data))
	}
	if len(e.Error) > 0 && string(e.Error) != "null" {
		return fmt.Errorf("the stream carried an error: %s", quote(data))
	}
	var carried bool
	if chat {
		var c openai.ChatCompletionStreamResponse
		if err := json.Unmarshal(data, &c); err != nil {
			return fmt.Errorf("an event is no chat completion chunk: %s", quote(data))
		}
		carried = r.chatChunk(c)
	} else {
		var c openai.CompletionResponse
		if err := json.Unmarshal(data, &c); err != nil {
			return fmt.Errorf("an event is no completion chunk: %s", quote(data))
		}
		carried = r.completionChunk(c)
	}
	if carried {
		r.arrivals = append(r.arrivals, at)
	}
	return nil
}

// chatChunk adds a chat chunk's first choice and usage; it reports whether the chunk carried
// content or tool-call text.
func (r *reply) chatChunk(c openai.ChatCompletionStreamResponse) bool {
	if c.Usage != nil {
		r.usage = c.Usage
	}
	carried := false
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue // the probes ask for one choice
		}
		r.content += ch.Delta.Content
		r.calls = joinCalls(r.calls, ch.Delta.ToolCalls)
		if ch.FinishReason != "" {
			r.finish = string(ch.FinishReason)
		}
		carried = carried || ch.Delta.Content != "" || hasCallText(ch.Delta.ToolCalls)
	}
	return carried
}

// completionChunk is chatChunk for the completions API.
func (r *reply) completionChunk(c openai.CompletionResponse) bool {
	if c.Usage != nil {
		r.usage = c.Usage
	}
	carried := false
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		r.content += ch.Text
		if ch.FinishReason != "" {
			r.finish = ch.FinishReason
		}
		carried = carried || ch.Text != ""
	}
	return carried
}

// hasCallText reports whether tool-call deltas carry a name or arguments.
func hasCallText(deltas []openai.ToolCall) bool {
	for _, d := range deltas {
		if d.Function.Name != "" || d.Function.Arguments != "" {
			return true
		}
	}
	return false
}
