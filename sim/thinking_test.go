package sim

import (
	"encoding/json"
	"strings"
	"testing"
)

// A request with thinking_token_budget thinks that many tokens first, in each API's reasoning
// dialect, then answers the rest; the usage says the split where the API breaks it out.
func TestThinkingDialects(t *testing.T) {
	_, url := startServer(t, fastConfig())
	msgs := []map[string]any{{"role": "user", "content": "hi"}}

	chat := post(t, url, "/v1/chat/completions", map[string]any{"model": "m", "messages": msgs, "max_tokens": 5,
		"thinking_token_budget": 3, "stream": true, "stream_options": map[string]any{"include_usage": true}})
	var thinking, answer, reasoningUsage int
	for _, e := range chat.events {
		var c struct {
			Choices []struct {
				Delta struct {
					Content          string `json:"content"`
					ReasoningContent string `json:"reasoning_content"`
				}
			}
			Usage *struct {
				Details struct {
					Reasoning int `json:"reasoning_tokens"`
				} `json:"completion_tokens_details"`
			}
		}
		if err := json.Unmarshal(e, &c); err != nil {
			t.Fatal(err)
		}
		for _, ch := range c.Choices {
			thinking += strings.Count(ch.Delta.ReasoningContent, "tok")
			answer += strings.Count(ch.Delta.Content, "tok")
			if ch.Delta.Content != "" && ch.Delta.ReasoningContent != "" {
				t.Errorf("a chunk with thinking and answer: %s", e)
			}
		}
		if c.Usage != nil {
			reasoningUsage = c.Usage.Details.Reasoning
		}
	}
	if thinking != 3 || answer != 2 || reasoningUsage != 3 {
		t.Errorf("chat: %d thinking, %d answer tokens, usage reasoning %d; want 3, 2, 3", thinking, answer, reasoningUsage)
	}

	resp := postEvents(t, url, "/v1/responses", map[string]any{"model": "m", "input": "hi", "max_output_tokens": 4,
		"thinking_token_budget": 1, "stream": true})
	resp.ok(t)
	names := strings.Join(resp.names(), " ")
	for _, want := range []string{"response.output_item.added response.reasoning_text.delta response.reasoning_text.done response.output_item.done response.output_item.added response.content_part.added response.output_text.delta",
		`"reasoning_tokens":1`} {
		if !strings.Contains(names, want) && !strings.Contains(string(resp.events[len(resp.events)-1].data), want) {
			t.Errorf("responses: %q not in the events %s / %s", want, names, resp.events[len(resp.events)-1].data)
		}
	}

	msg := postEvents(t, url, "/v1/messages", map[string]any{"model": "m", "messages": msgs, "max_tokens": 3,
		"thinking_token_budget": 3, "stream": true})
	msg.ok(t)
	var deltas []string
	for _, e := range msg.events {
		if e.name == "content_block_delta" {
			deltas = append(deltas, string(e.data))
		}
	}
	if len(deltas) == 0 || !strings.Contains(deltas[0], "thinking_delta") || strings.Contains(strings.Join(deltas, ""), "text_delta") {
		t.Errorf("messages thought to its cap: deltas %v", deltas)
	}

	bad := post(t, url, "/v1/chat/completions", map[string]any{"model": "m", "messages": msgs, "max_tokens": 5, "thinking_token_budget": -2})
	if bad.status != 400 || !strings.Contains(string(bad.body), "thinking_token_budget") {
		t.Errorf("a budget of -2: status %d %s", bad.status, bad.body)
	}
}
