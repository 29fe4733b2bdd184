package sim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// weatherParams is a tool's parameters schema with the keywords a tool usually has.
const weatherParams = `{"type":"object","properties":{"city":{"type":"string","minLength":2},` +
	`"unit":{"type":"string","enum":["celsius","fahrenheit"]},"days":{"type":"integer","minimum":1,"maximum":7}},` +
	`"required":["city","unit","days"],"additionalProperties":false}`

// weatherArgs is what the simulator calls get_weather with: weatherParams' minimal instance.
const weatherArgs = `{"city":"aa","days":1,"unit":"celsius"}`

func weatherTools() []any {
	return []any{
		map[string]any{"type": "function", "function": map[string]any{"name": "search", "parameters": json.RawMessage(`{"type":"object"}`)}},
		map[string]any{"type": "function", "function": map[string]any{"name": "get_weather", "parameters": json.RawMessage(weatherParams)}},
	}
}

// toolCallJSON is a tool call as a message or a delta carries it.
type toolCallJSON struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// contentChoice is one choice of an answer, assembled from a body or from stream chunks.
type contentChoice struct {
	content *string
	calls   []toolCallJSON
	finish  string
	chunks  int // stream chunks that carried some of it
}

// assembled reads an answer (streamed or not) into its choices and completion tokens.
func assembled(t *testing.T, o observed) (map[int]*contentChoice, int) {
	t.Helper()
	if o.status != http.StatusOK || o.readErr != nil {
		t.Fatalf("status %d, %v: %s", o.status, o.readErr, o.body)
	}
	type msg struct {
		Content   *string        `json:"content"`
		ToolCalls []toolCallJSON `json:"tool_calls"`
	}
	type frame struct {
		Choices []struct {
			Index        int     `json:"index"`
			Message      *msg    `json:"message"`
			Delta        *msg    `json:"delta"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
		Usage *struct {
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	frames := o.events
	if !o.sse {
		frames = [][]byte{o.body}
	}
	out, completion := map[int]*contentChoice{}, -1
	for _, f := range frames {
		var fr frame
		if err := json.Unmarshal(f, &fr); err != nil {
			t.Fatalf("frame %s: %v", f, err)
		}
		if fr.Usage != nil {
			completion = fr.Usage.CompletionTokens
		}
		for _, c := range fr.Choices {
			ch := out[c.Index]
			if ch == nil {
				ch = &contentChoice{}
				out[c.Index] = ch
			}
			m := c.Message
			if m == nil {
				m = c.Delta
			}
			ch.add(m.Content, m.ToolCalls)
			if c.FinishReason != nil {
				ch.finish = *c.FinishReason
			}
		}
	}
	return out, completion
}

// add appends a message's or a delta's content and tool calls (deltas by their index).
func (ch *contentChoice) add(content *string, calls []toolCallJSON) {
	ch.chunks++
	if content != nil {
		s := *content
		if ch.content != nil {
			s = *ch.content + s
		}
		ch.content = &s
	}
	for _, c := range calls {
		i := 0
		if c.Index != nil {
			i = *c.Index
		}
		for len(ch.calls) <= i {
			ch.calls = append(ch.calls, toolCallJSON{})
		}
		have := &ch.calls[i]
		if c.ID != "" {
			have.ID, have.Type, have.Function.Name = c.ID, c.Type, c.Function.Name
		}
		have.Function.Arguments += c.Function.Arguments
	}
}

// TestToolCallAnswers: a request whose tool_choice forces a function is answered with a call of
// it, streamed as OpenAI streams tool_calls deltas (id, type and name first, the arguments in
// pieces) and whole as message.tool_calls; its arguments are the parameters' minimal instance,
// as many tokens as the Counter makes of them (usage, chunks and the engine agree), in every
// choice, under the cost model and in zero-cost mode.
func TestToolCallAnswers(t *testing.T) {
	tokens := ApproxCounter{}.Count(weatherArgs)
	for _, zero := range []bool{false, true} {
		cfg := fastConfig()
		cfg.ZeroCost = zero
		_, url := startServer(t, cfg)
		for _, stream := range []bool{false, true} {
			for _, choice := range []any{"required", map[string]any{"type": "function", "function": map[string]string{"name": "get_weather"}}} {
				name := fmt.Sprintf("zero=%v stream=%v tool_choice=%v", zero, stream, choice)
				body := tinyRequest(true, stream, 64)
				body["tools"], body["tool_choice"], body["n"] = weatherTools(), choice, 2
				body["stream_options"] = map[string]bool{"include_usage": true}
				if choice == "required" { // the first function offered is the one called
					body["tools"] = weatherTools()[1:]
				}
				choices, completion := assembled(t, send(t, t.Context(), url, "/v1/chat/completions", "", body))
				if len(choices) != 2 || completion != 2*tokens {
					t.Fatalf("%s: %d choices, %d completion tokens, want 2 and %d", name, len(choices), completion, 2*tokens)
				}
				for i, ch := range choices {
					if len(ch.calls) != 1 || ch.finish != "tool_calls" || ch.content != nil && *ch.content != "" {
						t.Fatalf("%s: choice %d: %+v", name, i, ch)
					}
					c := ch.calls[0]
					if c.Function.Name != "get_weather" || c.Type != "function" || !strings.HasPrefix(c.ID, "call_sim_") || !strings.HasSuffix(c.ID, fmt.Sprintf("_%d", i)) {
						t.Errorf("%s: choice %d: call %+v", name, i, c)
					}
					if c.Function.Arguments != weatherArgs {
						t.Errorf("%s: arguments %s, want %s", name, c.Function.Arguments, weatherArgs)
					}
					if err := validate(t, weatherParams, c.Function.Arguments); err != nil {
						t.Errorf("%s: arguments do not validate: %v", name, err)
					}
					if stream && ch.chunks != tokens {
						t.Errorf("%s: choice %d in %d chunks, want one per token (%d)", name, i, ch.chunks, tokens)
					}
				}
			}
		}
	}
}

// TestSchemaAnswers: response_format json_schema is answered with its schema's minimal
// instance and json_object with {}, streamed or not; tool_choice naming a function that tools
// lack calls it with {}; completions keep the filler; a json_schema that is no object is a 400.
func TestSchemaAnswers(t *testing.T) {
	_, url := startServer(t, fastConfig())
	format := map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "w", "strict": true, "schema": json.RawMessage(weatherParams)}}
	for _, stream := range []bool{false, true} {
		body := tinyRequest(true, stream, 64)
		body["response_format"] = format
		choices, _ := assembled(t, send(t, t.Context(), url, "/v1/chat/completions", "", body))
		if ch := choices[0]; ch.content == nil || *ch.content != weatherArgs || ch.finish != "stop" || len(ch.calls) != 0 {
			t.Errorf("json_schema stream=%v: %+v", stream, ch)
		}
		body["response_format"] = map[string]string{"type": "json_object"}
		choices, _ = assembled(t, send(t, t.Context(), url, "/v1/chat/completions", "", body))
		if ch := choices[0]; ch.content == nil || *ch.content != "{}" || ch.finish != "stop" {
			t.Errorf("json_object stream=%v: %+v", stream, ch)
		}
		body["tools"], body["tool_choice"] = weatherTools(), map[string]any{"type": "function", "function": map[string]string{"name": "gone"}}
		choices, _ = assembled(t, send(t, t.Context(), url, "/v1/chat/completions", "", body))
		if ch := choices[0]; len(ch.calls) != 1 || ch.calls[0].Function.Name != "gone" || ch.calls[0].Function.Arguments != "{}" {
			t.Errorf("a function tools lack, stream=%v: %+v", stream, ch)
		}
	}
	body := tinyRequest(false, false, 3)
	body["response_format"] = format
	o := send(t, t.Context(), url, "/v1/completions", "", body)
	if !strings.Contains(string(o.body), `"text":" tok tok tok"`) {
		t.Errorf("completions with a json_schema: %s, want the filler", o.body)
	}
	body = tinyRequest(true, false, 3)
	body["response_format"] = map[string]any{"type": "json_schema", "json_schema": "w"}
	o = send(t, t.Context(), url, "/v1/chat/completions", "", body)
	if o.status != http.StatusBadRequest || !strings.Contains(string(o.body), `response_format.json_schema`) {
		t.Errorf("a json_schema that is a string: %d %s", o.status, o.body)
	}
}

// TestContentLength: a content longer than max_tokens is cut there (finish_reason "length");
// min_tokens and ignore_eos pad it with whitespace tokens, so it still parses; usage counts
// what was sent.
func TestContentLength(t *testing.T) {
	tokens := ApproxCounter{}.Count(weatherArgs)
	_, url := startServer(t, fastConfig())
	format := map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "w", "schema": json.RawMessage(weatherParams)}}
	for _, tc := range []struct {
		extra  map[string]any
		max    int
		want   string
		finish string
	}{
		{nil, 3, weatherArgs[:cutTokens(weatherArgs, tokens)[3]], "length"},
		{nil, tokens, weatherArgs, "length"},
		{map[string]any{"min_tokens": tokens + 2}, 64, weatherArgs + "  ", "stop"},
		{map[string]any{"ignore_eos": true}, tokens + 3, weatherArgs + "   ", "length"},
	} {
		body := tinyRequest(true, true, tc.max)
		body["response_format"], body["stream_options"] = format, map[string]bool{"include_usage": true}
		for k, v := range tc.extra {
			body[k] = v
		}
		choices, completion := assembled(t, send(t, t.Context(), url, "/v1/chat/completions", "", body))
		ch := choices[0]
		if ch.content == nil || *ch.content != tc.want || ch.finish != tc.finish || completion != ch.chunks {
			t.Errorf("max_tokens %d %v: %q (%d chunks, usage %d), finish %q; want %q, %q", tc.max, tc.extra, *ch.content, ch.chunks, completion, ch.finish, tc.want, tc.finish)
		}
		if tc.finish == "stop" || tc.extra != nil {
			var v any
			if err := json.Unmarshal([]byte(*ch.content), &v); err != nil {
				t.Errorf("padded content %q: %v", *ch.content, err)
			}
		}
	}
}
