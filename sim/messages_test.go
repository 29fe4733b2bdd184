package sim

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// checkMessage holds a whole message to the published shapes and returns its one block.
func checkMessage(t *testing.T, what string, m object, stopReason string) object {
	t.Helper()
	mustShape(t, what, messageShape, m)
	if m.str("type") != "message" || m.str("role") != "assistant" || m.str("stop_reason") != stopReason ||
		string(m["stop_sequence"]) != "null" || !strings.HasPrefix(m.str("id"), "msg_") {
		t.Errorf("%s: %v (want stop_reason %q)", what, m, stopReason)
	}
	mustShape(t, what+" usage", anthropicUsageShape, m.obj("usage"))
	blocks := m.list("content")
	if len(blocks) != 1 {
		t.Fatalf("%s: content %s", what, m["content"])
	}
	return blocks[0]
}

// anthropicInput is a usage's whole input: Anthropic's input_tokens exclude the cache's.
func anthropicInput(u object) int {
	return u.num("input_tokens") + u.num("cache_read_input_tokens") + u.num("cache_creation_input_tokens")
}

// TestMessagesNonStreamed: a Messages API request answers with a message in the published
// shape, the filler's max_tokens tokens in one text block, stop_reason max_tokens, and an
// input (input_tokens plus the cache's) equal to chat's prompt for the same conversation.
func TestMessagesNonStreamed(t *testing.T) {
	for _, zero := range []bool{false, true} {
		cfg := fastConfig()
		cfg.ZeroCost = zero
		_, url := startServer(t, cfg)
		res := postEvents(t, url, "/v1/messages", map[string]any{"model": "claude-x", "max_tokens": 6,
			"system":         []map[string]string{{"type": "text", "text": "be "}, {"type": "text", "text": "brief"}},
			"messages":       []map[string]any{{"role": "user", "content": []map[string]string{{"type": "text", "text": "hello world"}}}},
			"stop_sequences": []string{"\n\nHuman:"}, "top_k": 5, "thinking": map[string]any{"type": "disabled"}})
		if res.status != 200 {
			t.Fatalf("zero=%v: status %d %s", zero, res.status, res.body)
		}
		m := decodeObject(t, res.body)
		block := checkMessage(t, "message", m, "max_tokens")
		mustShape(t, "text block", textBlockShape, block)
		if block.str("type") != "text" || block.str("text") != strings.Repeat(fillerToken, 6) || m.str("model") != "claude-x" {
			t.Errorf("zero=%v: %s", zero, res.body)
		}
		chat := chatPromptTokens(t, url, map[string]any{"max_tokens": 6, "messages": []map[string]string{
			{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello world"}}})
		u := m.obj("usage")
		if anthropicInput(u) != chat || u.num("output_tokens") != 6 || u.num("cache_creation_input_tokens") != 0 {
			t.Errorf("zero=%v: usage %s, want an input of %d (chat's) and 6 output", zero, m["usage"], chat)
		}
	}
}

// TestMessagesStream: a streamed answer is the events of the SDK's fixture in its order, named
// by their `event:` lines, one text_delta per token; message_delta ends it with stop_reason
// and the whole usage.
func TestMessagesStream(t *testing.T) {
	for _, mode := range []string{"engine", "zero-cost", "paced"} {
		cfg := fastConfig()
		cfg.ZeroCost = mode != "engine"
		if mode == "paced" {
			cfg.TokenDelay = time.Millisecond
		}
		_, url := startServer(t, cfg)
		res := postEvents(t, url, "/v1/messages", map[string]any{"max_tokens": 5, "stream": true,
			"messages": []map[string]any{{"role": "user", "content": "hi"}}})
		res.ok(t)
		if got, want := collapse(res.names()), eventOrder(anthropicTextStream); !slices.Equal(got, want) {
			t.Fatalf("%s: events %v, want the fixture's %v", mode, got, want)
		}
		text := checkMessagesEvents(t, res, "max_tokens", 5)
		if text != strings.Repeat(fillerToken, 5) {
			t.Errorf("%s: text %q", mode, text)
		}
	}
}

// checkMessagesEvents holds every event to its type's shape and returns the deltas' text;
// the message_delta must say stopReason and output tokens.
func checkMessagesEvents(t *testing.T, res eventStream, stopReason string, output int) string {
	t.Helper()
	var text strings.Builder
	for i, e := range res.events {
		o := decodeObject(t, e.data)
		sh, known := messagesEventShapes[e.name]
		if !known || o.str("type") != e.name {
			t.Fatalf("event %d %q: %s", i, e.name, e.data)
		}
		mustShape(t, e.name, sh, o)
		switch e.name {
		case "message_start":
			m := o.obj("message")
			mustShape(t, "message_start.message", messageShape, m)
			if string(m["content"]) != "[]" || string(m["stop_reason"]) != "null" || m.obj("usage").num("output_tokens") != 1 {
				t.Errorf("message_start %s", e.data)
			}
		case "content_block_delta":
			d := o.obj("delta")
			if d.str("type") == "input_json_delta" {
				text.WriteString(d.str("partial_json"))
			} else {
				text.WriteString(d.str("text"))
			}
		case "message_delta":
			mustShape(t, "message_delta.delta", messageDeltaShape, o.obj("delta"))
			mustShape(t, "message_delta.usage", messageDeltaUsageShape, o.obj("usage"))
			if o.obj("delta").str("stop_reason") != stopReason || o.obj("usage").num("output_tokens") != output {
				t.Errorf("message_delta %s, want %s and %d output tokens", e.data, stopReason, output)
			}
		}
		if idx, ok := o["index"]; ok && string(idx) != "0" {
			t.Errorf("%s: index %s", e.name, idx)
		}
	}
	return text.String()
}

// TestMessagesToolUse: a forced tool answers with a tool_use block whose input fits the
// tool's input_schema, streamed as the SDK's fixture streams a tool_use block (its start with
// input {}, input_json_delta deltas, its stop); stop_reason is tool_use.
func TestMessagesToolUse(t *testing.T) {
	_, url := startServer(t, fastConfig())
	tools := []map[string]any{{"name": "get_weather", "description": "weather", "input_schema": map[string]any{
		"type": "object", "properties": map[string]any{"location": map[string]any{"type": "string", "minLength": 3}}, "required": []string{"location"}}}}
	body := map[string]any{"max_tokens": 60, "messages": []map[string]any{{"role": "user", "content": "weather?"}},
		"tools": tools, "tool_choice": map[string]string{"type": "tool", "name": "get_weather"}}
	m := decodeObject(t, postEvents(t, url, "/v1/messages", body).body)
	block := checkMessage(t, "tool message", m, "tool_use")
	mustShape(t, "tool_use block", toolUseBlockShape, block)
	var in struct{ Location string }
	if block.str("type") != "tool_use" || block.str("name") != "get_weather" || json.Unmarshal(block["input"], &in) != nil || len(in.Location) < 3 {
		t.Errorf("block %v", block)
	}
	body["stream"] = true
	res := postEvents(t, url, "/v1/messages", body)
	res.ok(t)
	// The message's start, ping and end around the fixture's block, as for text.
	want := append(append([]string{"message_start"}, eventOrder(anthropicToolUseBlock)...), "message_delta", "message_stop")
	if got := collapse(slices.DeleteFunc(res.names(), func(n string) bool { return n == "ping" })); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	start := decodeObject(t, res.events[1].data).obj("content_block")
	mustShape(t, "tool_use start", toolUseBlockShape, start)
	if string(start["input"]) != "{}" || start.str("type") != "tool_use" || !strings.HasPrefix(start.str("id"), "toolu_") {
		t.Errorf("tool_use start %v", start)
	}
	var args struct{ Location string }
	partial := checkMessagesEvents(t, res, "tool_use", m.obj("usage").num("output_tokens"))
	if err := json.Unmarshal([]byte(partial), &args); err != nil || len(args.Location) < 3 {
		t.Errorf("partial_json %q: %v", partial, err)
	}
}

// TestMessagesCachedTokens: a repeated prompt is served from the prefix cache, which Anthropic
// reports apart: cache_read_input_tokens is chat's cached_tokens for the same prompt, and
// input_tokens the rest.
func TestMessagesCachedTokens(t *testing.T) {
	_, url := startServer(t, fastConfig())
	long := strings.Repeat("the quick brown fox jumps over the lazy dog ", 40)
	body := map[string]any{"max_tokens": 2, "system": long, "messages": []map[string]any{{"role": "user", "content": "q"}}}
	postEvents(t, url, "/v1/messages", body) // fills the cache
	m := decodeObject(t, postEvents(t, url, "/v1/messages", body).body)
	u := m.obj("usage")
	chat := usageOf(t, post(t, url, "/v1/chat/completions", map[string]any{"max_tokens": 2, "stream": true,
		"stream_options": map[string]bool{"include_usage": true},
		"messages":       []map[string]string{{"role": "system", "content": long}, {"role": "user", "content": "q"}}}))
	if cached := u.num("cache_read_input_tokens"); cached == 0 || cached != chat.PromptTokensDetails.CachedTokens ||
		u.num("input_tokens") != chat.PromptTokens-cached {
		t.Errorf("usage %s; chat's prompt %d cached %d", m["usage"], chat.PromptTokens, chat.PromptTokensDetails.CachedTokens)
	}
	res := postEvents(t, url, "/v1/messages", map[string]any{"max_tokens": 2, "system": long, "stream": true,
		"messages": []map[string]any{{"role": "user", "content": "q"}}})
	res.ok(t)
	start := decodeObject(t, res.events[0].data).obj("message").obj("usage")
	if start.num("cache_read_input_tokens") != u.num("cache_read_input_tokens") || start.num("input_tokens") != u.num("input_tokens") {
		t.Errorf("message_start usage %v, want the cache split %s", start, m["usage"])
	}
}
