package sim

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// chatPromptTokens is the prompt tokens chat reports for body (a chat request, not streamed).
func chatPromptTokens(t *testing.T, url string, body map[string]any) int {
	t.Helper()
	res := postEvents(t, url, "/v1/chat/completions", body)
	if res.status != 200 {
		t.Fatalf("chat: status %d %s", res.status, res.body)
	}
	return decodeObject(t, res.body).obj("usage").num("prompt_tokens")
}

// checkResponse holds a whole response object to the published shapes and returns its output
// item.
func checkResponse(t *testing.T, what string, resp object, status string) object {
	t.Helper()
	mustShape(t, what, responseShape, resp)
	if resp.str("object") != "response" || resp.str("status") != status || !strings.HasPrefix(resp.str("id"), "resp_") {
		t.Errorf("%s: object %q status %q (want %q) id %q", what, resp.str("object"), resp.str("status"), status, resp.str("id"))
	}
	details := string(resp["incomplete_details"])
	if status == "incomplete" && details != `{"reason":"max_output_tokens"}` || status == "completed" && details != "null" {
		t.Errorf("%s: incomplete_details %s for status %s", what, details, status)
	}
	u := resp.obj("usage")
	mustShape(t, what+" usage", responseUsageShape, u)
	mustShape(t, what+" usage.input_tokens_details", inputDetailsShape, u.obj("input_tokens_details"))
	mustShape(t, what+" usage.output_tokens_details", outputDetailsShape, u.obj("output_tokens_details"))
	if u.num("total_tokens") != u.num("input_tokens")+u.num("output_tokens") {
		t.Errorf("%s: usage %s", what, resp["usage"])
	}
	out := resp.list("output")
	if len(out) != 1 {
		t.Fatalf("%s: output %s", what, resp["output"])
	}
	return out[0]
}

// checkMessageItem holds an output message to its shape and returns its text.
func checkMessageItem(t *testing.T, what string, item object, status string) string {
	t.Helper()
	mustShape(t, what, outputMessageShape, item)
	parts := item.list("content")
	if item.str("type") != "message" || item.str("role") != "assistant" || item.str("status") != status || len(parts) != 1 {
		t.Fatalf("%s: %v", what, item)
	}
	mustShape(t, what+" part", outputTextShape, parts[0])
	if parts[0].str("type") != "output_text" || string(parts[0]["annotations"]) != "[]" {
		t.Errorf("%s: part %v", what, parts[0])
	}
	return parts[0].str("text")
}

// TestResponsesNonStreamed: a Responses API request answers with a response object in the
// published shape: the filler's max_output_tokens tokens in one output_text, "incomplete"
// for max_output_tokens (as chat's filler ends with finish_reason "length"), and input
// tokens equal to chat's prompt tokens for the same conversation (instructions a system
// message), in both modes.
func TestResponsesNonStreamed(t *testing.T) {
	for _, zero := range []bool{false, true} {
		cfg := fastConfig()
		cfg.ZeroCost = zero
		_, url := startServer(t, cfg)
		res := postEvents(t, url, "/v1/responses", map[string]any{
			"model": "m1", "instructions": "be brief", "input": "hello world", "max_output_tokens": 5, "temperature": 0.5,
		})
		if res.status != 200 {
			t.Fatalf("zero=%v: status %d %s", zero, res.status, res.body)
		}
		resp := decodeObject(t, res.body)
		item := checkResponse(t, "response", resp, "incomplete")
		if text := checkMessageItem(t, "output[0]", item, "incomplete"); text != strings.Repeat(fillerToken, 5) {
			t.Errorf("zero=%v: text %q", zero, text)
		}
		if resp.str("model") != "m1" || resp.str("instructions") != "be brief" || resp.num("max_output_tokens") != 5 ||
			string(resp["temperature"]) != "0.5" || string(resp["tools"]) != "[]" || resp.str("tool_choice") != "auto" {
			t.Errorf("zero=%v: echo %s", zero, res.body)
		}
		chat := chatPromptTokens(t, url, map[string]any{"max_tokens": 5, "messages": []map[string]string{
			{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello world"}}})
		u := resp.obj("usage")
		if u.num("input_tokens") != chat || u.num("output_tokens") != 5 || u.obj("input_tokens_details").num("cached_tokens") != 0 {
			t.Errorf("zero=%v: usage %s, want input_tokens %d (chat's) and 5 output", zero, resp["usage"], chat)
		}
	}
}

// TestResponsesStream: a streamed answer is the events of OpenAI's reference example in its
// order, each with its `event:` line naming its type, numbered 0, 1, 2...; one delta per token
// with the item's id; the text done and the last event carry the whole text and the usage.
func TestResponsesStream(t *testing.T) {
	for _, mode := range []string{"engine", "zero-cost", "paced"} {
		cfg := fastConfig()
		cfg.ZeroCost = mode != "engine"
		if mode == "paced" {
			cfg.TokenDelay = time.Millisecond
		}
		_, url := startServer(t, cfg)
		// json_object answers "{}", which ends the answer: the reference's completed response.
		res := postEvents(t, url, "/v1/responses", map[string]any{"input": "hi", "max_output_tokens": 8, "stream": true,
			"text": map[string]any{"format": map[string]string{"type": "json_object"}}})
		res.ok(t)
		if got, want := collapse(res.names()), eventOrder(responsesTextStream); !slices.Equal(got, want) {
			t.Fatalf("%s: events %v, want the reference's %v", mode, got, want)
		}
		checkResponsesEvents(t, res, "completed")
		// The filler runs to max_output_tokens: one delta per token, and response.incomplete.
		res = postEvents(t, url, "/v1/responses", map[string]any{"input": "hi", "max_output_tokens": 6, "stream": true})
		res.ok(t)
		if n := strings.Count(strings.Join(res.names(), " "), "response.output_text.delta"); n != 6 {
			t.Errorf("%s: %d deltas, want 6", mode, n)
		}
		last := checkResponsesEvents(t, res, "incomplete")
		if text := checkMessageItem(t, "final output", checkResponse(t, "final", last, "incomplete"), "incomplete"); text != strings.Repeat(fillerToken, 6) {
			t.Errorf("%s: final text %q", mode, text)
		}
	}
}

// checkResponsesEvents holds every event to its type's shape, the sequence numbers to 0, 1,
// 2..., every item reference to the one item, and the deltas to the done text; it returns the
// last event's response.
func checkResponsesEvents(t *testing.T, res eventStream, status string) object {
	t.Helper()
	var itemID, deltas, doneText string
	var last object
	for i, e := range res.events {
		o := decodeObject(t, e.data)
		sh, known := responsesEventShapes[e.name]
		if !known || o.str("type") != e.name || o.num("sequence_number") != i {
			t.Fatalf("event %d %q: %s", i, e.name, e.data)
		}
		mustShape(t, e.name, sh, o)
		switch e.name {
		case "response.output_item.added":
			itemID = o.obj("item").str("id")
			if o.obj("item").str("status") != "in_progress" || string(o.obj("item")["content"]) != "[]" {
				t.Errorf("added item %s", o["item"])
			}
		case "response.output_text.delta":
			deltas += o.str("delta")
			if string(o["logprobs"]) != "[]" || o.num("content_index") != 0 {
				t.Errorf("delta %s", e.data)
			}
		case "response.output_text.done":
			doneText = o.str("text")
		case "response.created", "response.in_progress":
			if r := o.obj("response"); r.str("status") != "in_progress" || string(r["usage"]) != "null" || string(r["output"]) != "[]" {
				t.Errorf("%s: %s", e.name, e.data)
			}
		}
		if id, ok := o["item_id"]; ok && (itemID == "" || string(id) != `"`+itemID+`"`) {
			t.Errorf("%s: item_id %s, want %q", e.name, id, itemID)
		}
		last = o
	}
	if deltas != doneText || doneText == "" {
		t.Errorf("deltas %q, done text %q", deltas, doneText)
	}
	if res.events[len(res.events)-1].name != "response."+status {
		t.Errorf("last event %q, want response.%s", res.events[len(res.events)-1].name, status)
	}
	return last.obj("response")
}

// TestResponsesFunctionCall: a forced tool choice answers with a function_call item whose
// arguments fit the tool's parameters, streamed as function_call_arguments deltas; the
// response is completed, and the flat Responses tool counts as chat's nested one does.
func TestResponsesFunctionCall(t *testing.T) {
	cfg := fastConfig()
	_, url := startServer(t, cfg)
	params := map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string", "minLength": 2}}, "required": []string{"city"}}
	tools := []map[string]any{{"type": "function", "name": "get_weather", "description": "weather", "parameters": params}}
	for _, stream := range []bool{false, true} {
		body := map[string]any{"input": "weather?", "tools": tools, "max_output_tokens": 50, "stream": stream,
			"tool_choice": map[string]string{"type": "function", "name": "get_weather"}}
		var resp object
		if stream {
			res := postEvents(t, url, "/v1/responses", body)
			res.ok(t)
			args, done := "", ""
			for _, e := range res.events {
				o := decodeObject(t, e.data)
				mustShape(t, e.name, responsesEventShapes[e.name], o)
				switch e.name {
				case "response.function_call_arguments.delta":
					args += o.str("delta")
				case "response.function_call_arguments.done":
					done = o.str("arguments")
				}
			}
			if args != done || !json.Valid([]byte(args)) {
				t.Errorf("streamed arguments %q, done %q", args, done)
			}
			resp = decodeObject(t, res.events[len(res.events)-1].data).obj("response")
		} else {
			res := postEvents(t, url, "/v1/responses", body)
			resp = decodeObject(t, res.body)
		}
		item := checkResponse(t, "call", resp, "completed")
		mustShape(t, "function_call", functionCallShape, item)
		var args struct{ City string }
		if item.str("type") != "function_call" || item.str("name") != "get_weather" || item.str("status") != "completed" ||
			!strings.HasPrefix(item.str("call_id"), "call_") || json.Unmarshal([]byte(item.str("arguments")), &args) != nil || len(args.City) < 2 {
			t.Errorf("stream=%v: item %v", stream, item)
		}
	}
	chat := chatPromptTokens(t, url, map[string]any{"max_tokens": 1, "messages": []map[string]string{{"role": "user", "content": "weather?"}},
		"tools": []map[string]any{{"type": "function", "function": map[string]any{"name": "get_weather", "description": "weather", "parameters": params}}}})
	resp := decodeObject(t, postEvents(t, url, "/v1/responses", map[string]any{"input": "weather?", "tools": tools, "max_output_tokens": 1}).body)
	if got := resp.obj("usage").num("input_tokens"); got != chat {
		t.Errorf("input_tokens %d with the tool, want chat's %d", got, chat)
	}
}

// TestResponsesJSONSchema: text.format json_schema answers with an instance of the schema as
// the message's text.
func TestResponsesJSONSchema(t *testing.T) {
	_, url := startServer(t, fastConfig())
	res := postEvents(t, url, "/v1/responses", map[string]any{"input": "x", "max_output_tokens": 64,
		"text": map[string]any{"format": map[string]any{"type": "json_schema", "name": "n",
			"schema": map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer", "minimum": 3}}, "required": []string{"n"}}}}})
	resp := decodeObject(t, res.body)
	text := checkMessageItem(t, "schema answer", checkResponse(t, "schema", resp, "completed"), "completed")
	var v struct{ N int }
	if err := json.Unmarshal([]byte(text), &v); err != nil || v.N < 3 {
		t.Errorf("text %q: %v", text, err)
	}
}

// TestForcedLengths: min_tokens and ignore_eos force a JSON answer's length on the new APIs as
// on chat (padded with " " tokens, which JSON allows after a value), and the cap ends it as
// max_output_tokens or max_tokens.
func TestForcedLengths(t *testing.T) {
	_, url := startServer(t, fastConfig())
	format := map[string]any{"format": map[string]string{"type": "json_object"}}
	schema := map[string]any{"format": map[string]any{"type": "json_schema", "schema": map[string]any{"type": "object"}}}
	user := []map[string]any{{"role": "user", "content": "x"}}
	cases := []struct {
		path   string
		body   map[string]any
		output int
		end    string
	}{
		{"/v1/responses", map[string]any{"input": "x", "text": format, "max_output_tokens": 9}, 1, "completed"},
		{"/v1/responses", map[string]any{"input": "x", "text": format, "max_output_tokens": 9, "min_tokens": 5}, 5, "completed"},
		{"/v1/responses", map[string]any{"input": "x", "text": format, "max_output_tokens": 9, "ignore_eos": true}, 9, "incomplete"},
		{"/v1/messages", map[string]any{"messages": user, "output_config": schema, "max_tokens": 9}, 1, "end_turn"},
		{"/v1/messages", map[string]any{"messages": user, "output_config": schema, "max_tokens": 9, "min_tokens": 4}, 4, "end_turn"},
		{"/v1/messages", map[string]any{"messages": user, "output_config": schema, "max_tokens": 9, "ignore_eos": true}, 9, "max_tokens"},
	}
	for _, tc := range cases {
		o := decodeObject(t, postEvents(t, url, tc.path, tc.body).body)
		var output int
		var end, text string
		if tc.path == "/v1/responses" {
			output, end = o.obj("usage").num("output_tokens"), o.str("status")
			text = o.list("output")[0].list("content")[0].str("text")
		} else {
			output, end = o.obj("usage").num("output_tokens"), o.str("stop_reason")
			text = o.list("content")[0].str("text")
		}
		if output != tc.output || end != tc.end || !json.Valid([]byte(text)) {
			t.Errorf("%s %v: %d output tokens, %q, text %q; want %d and %q", tc.path, tc.body, output, end, text, tc.output, tc.end)
		}
	}
}
