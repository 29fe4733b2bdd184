package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/llm-replay/replay/chat"
)

// The request keys each API's reference documents for its create call; a body the client
// builds has no other key (a misspelt or foreign key would be rejected by the API, or
// silently ignored by an engine).
var (
	// https://platform.openai.com/docs/api-reference/responses/create (request body).
	responsesKeys = []string{"background", "conversation", "include", "input", "instructions", "max_output_tokens",
		"max_tool_calls", "metadata", "model", "parallel_tool_calls", "previous_response_id", "prompt",
		"prompt_cache_key", "prompt_cache_retention", "reasoning", "safety_identifier", "service_tier", "store",
		"stream", "stream_options", "temperature", "text", "tool_choice", "tools", "top_logprobs", "top_p",
		"truncation", "user"}
	// https://docs.anthropic.com/en/api/messages (body parameters).
	messagesKeys = []string{"model", "messages", "max_tokens", "container", "context_management", "mcp_servers",
		"metadata", "service_tier", "stop_sequences", "stream", "system", "temperature", "thinking", "tool_choice",
		"tools", "top_k", "top_p"}
	// https://platform.openai.com/docs/api-reference/embeddings/create (request body).
	embeddingsKeys = []string{"input", "model", "dimensions", "encoding_format", "user"}
)

// apiRecorder is a loopback server for every API: it keeps each request (path, headers,
// body) and answers it in its API's shape, streamed when the body asks.
type apiRecorder struct {
	mu   sync.Mutex
	reqs []recorded
}

type recorded struct {
	path string
	head http.Header
	body map[string]json.RawMessage
	raw  []byte
}

func (rc *apiRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	rc.mu.Lock()
	rc.reqs = append(rc.reqs, recorded{r.URL.Path, r.Header.Clone(), m, b})
	rc.mu.Unlock()
	streamed := string(m["stream"]) == "true"
	switch {
	case strings.HasSuffix(r.URL.Path, "/responses") && streamed:
		writeSSE(w, responsesStream(3, responsesCompleted))
	case strings.HasSuffix(r.URL.Path, "/responses"):
		w.Write([]byte(responsesObject))
	case strings.HasSuffix(r.URL.Path, "/messages") && streamed:
		writeSSE(w, messagesStream(3, "end_turn"))
	case strings.HasSuffix(r.URL.Path, "/messages"):
		w.Write([]byte(messagesObject))
	case strings.HasSuffix(r.URL.Path, "/embeddings"):
		fmt.Fprint(w, embeddingsList(embeddingCountOf(m["input"])))
	default:
		r.Body = io.NopCloser(bytes.NewReader(b))
		(&recorder{}).ServeHTTP(w, r)
	}
}

// embeddingCountOf is how many inputs an "input" value holds, read the way the API reads it.
func embeddingCountOf(raw json.RawMessage) int {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil || len(list) == 0 || (list[0][0] != '"' && list[0][0] != '[') {
		return 1
	}
	return len(list)
}

func (rc *apiRecorder) last(t *testing.T) recorded {
	t.Helper()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.reqs) == 0 {
		t.Fatal("no request reached the server")
	}
	return rc.reqs[len(rc.reqs)-1]
}

// checkKeys fails on a body key outside the API's documented ones.
func checkKeys(t *testing.T, body map[string]json.RawMessage, documented []string) {
	t.Helper()
	for k := range body {
		if !slices.Contains(documented, k) {
			t.Errorf("body key %q is not in the API reference's request body", k)
		}
	}
}

// checkRaw fails unless each key's value is exactly want's.
func checkRaw(t *testing.T, body map[string]json.RawMessage, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if string(body[k]) != v {
			t.Errorf("%s: got %s, want %s", k, body[k], v)
		}
	}
}

// sendPaths are the two ways a request leaves: the direct path (direct.go) and net/http's
// client, here over the plain pool (a connection cap turns the direct path off).
var sendPaths = []struct {
	name string
	mut  func(*Config)
}{{"direct", nil}, {"net/http", func(c *Config) { c.MaxConns = 4 }}}

// A Responses API body is the reference's shape: input items {role, content} (the system
// message among them as it is), max_output_tokens, the options raw (temperature 0, top_p,
// top_logprobs 0, parallel_tool_calls false, the flat tools, text as the whole object) and the
// logged other members (reasoning, truncation, store) in their order; no stop, n, seed or
// stream_options.
func TestResponsesBody(t *testing.T) {
	for _, p := range sendPaths {
		t.Run(p.name, func(t *testing.T) {
			rc := &apiRecorder{}
			srv := httptest.NewServer(rc)
			defer srv.Close()
			c := newClient(t, srv.URL, APIChat, p.mut)
			o := &Options{Temperature: ptr(0.0), TopP: ptr(0.9), TopLogprobs: ptr(0), ParallelToolCalls: ptr(false),
				Tools:          json.RawMessage(`[{"type":"function","name":"f","parameters":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"}}}}]`),
				ToolChoice:     json.RawMessage(`"auto"`),
				ResponseFormat: json.RawMessage(`{"format":{"type":"json_schema","name":"s","schema":{"type":"object"}}}`),
				Fields:         json.RawMessage(`{"reasoning":{"effort":"low"},"truncation":"disabled","store":false}`)}
			msgs := []chat.Message{{Role: "system", Content: "be brief <&>"}, {Role: "user", Content: "hi"}, {Role: "assistant", Content: "hello"}, {Role: "user", Content: "more"}}
			r := c.Do(context.Background(), Request{API: APIResponses, Messages: msgs, MaxTokens: 3, Options: o}, newClock())
			if !r.OK() || r.API != APIResponses {
				t.Fatalf("%s: %s (API %q)", r.ErrorClass, r.ErrorMessage, r.API)
			}
			got := rc.last(t)
			if got.path != "/v1/responses" {
				t.Fatalf("path %s", got.path)
			}
			checkKeys(t, got.body, responsesKeys)
			checkRaw(t, got.body, map[string]string{"model": `"m"`, "max_output_tokens": `3`, "stream": `true`,
				"temperature": `0`, "top_p": `0.9`, "top_logprobs": `0`, "parallel_tool_calls": `false`,
				"tools": string(o.Tools), "tool_choice": `"auto"`, "text": string(o.ResponseFormat),
				"reasoning": `{"effort":"low"}`, "truncation": `"disabled"`, "store": `false`,
				"input": `[{"role":"system","content":"be brief <&>"},{"role":"user","content":"hi"},{"role":"assistant","content":"hello"},{"role":"user","content":"more"}]`})
			if !strings.HasSuffix(string(got.raw), `,"reasoning":{"effort":"low"},"truncation":"disabled","store":false}`) {
				t.Errorf("the logged members are not spliced in their order: %s", got.raw)
			}
		})
	}
}

// A Messages API body is the reference's shape: a leading system message as "system", the
// rest as {role, content}, max_tokens, stop as stop_sequences, the options raw, the logged
// members (top_k, thinking, metadata); its requests carry anthropic-version and the key as
// x-api-key besides the Bearer token, on both send paths.
func TestMessagesBody(t *testing.T) {
	for _, p := range sendPaths {
		t.Run(p.name, func(t *testing.T) {
			rc := &apiRecorder{}
			srv := httptest.NewServer(rc)
			defer srv.Close()
			c := newClient(t, srv.URL, APIMessages, p.mut)
			o := &Options{Temperature: ptr(1.0), TopP: ptr(0.5), Stop: []string{"\n\nHuman:"},
				Tools:      json.RawMessage(`[{"name":"get_weather","description":"d","input_schema":{"type":"object","properties":{"location":{"type":"string"}}}}]`),
				ToolChoice: json.RawMessage(`{"type":"auto"}`),
				Fields:     json.RawMessage(`{"top_k":5,"thinking":{"type":"enabled","budget_tokens":1024},"metadata":{"user_id":"u"}}`)}
			msgs := []chat.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "hi"}}
			r := c.Do(context.Background(), Request{Messages: msgs, MaxTokens: 3, Options: o}, newClock())
			if !r.OK() || r.API != APIMessages || r.FinishReason != "stop" {
				t.Fatalf("%s: %s (API %q, finish %q)", r.ErrorClass, r.ErrorMessage, r.API, r.FinishReason)
			}
			got := rc.last(t)
			checkKeys(t, got.body, messagesKeys)
			checkRaw(t, got.body, map[string]string{"model": `"m"`, "system": `"be brief"`, "max_tokens": `3`,
				"stop_sequences": `["\n\nHuman:"]`, "stream": `true`, "temperature": `1`, "top_p": `0.5`,
				"tools": string(o.Tools), "tool_choice": `{"type":"auto"}`, "top_k": `5`,
				"thinking": `{"type":"enabled","budget_tokens":1024}`, "metadata": `{"user_id":"u"}`,
				"messages": `[{"role":"user","content":"hi"}]`})
			for k, v := range map[string]string{"Anthropic-Version": "2023-06-01", "X-Api-Key": "sk-test-secret",
				"Authorization": "Bearer sk-test-secret", "Accept": "text/event-stream", "Content-Type": "application/json"} {
				if got.head.Get(k) != v {
					t.Errorf("header %s %q, want %q", k, got.head.Get(k), v)
				}
			}
		})
	}
}

// An embeddings body is the reference's shape: model and input (a batch of one bare unless
// the log had an array; token ids as arrays), the logged members (encoding_format,
// dimensions); never stream or stream_options, never ExtraBody's forcing keys.
func TestEmbeddingsBody(t *testing.T) {
	rc := &apiRecorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	c := newClient(t, srv.URL, APIEmbeddings, func(c *Config) {
		c.ExtraBody = map[string]any{"ignore_eos": true, "min_tokens": 4, "user": "bench"}
	})
	fields := &Options{Fields: json.RawMessage(`{"encoding_format":"float","dimensions":8}`)}
	for _, tc := range []struct {
		req   Request
		input string
	}{
		{Request{Inputs: []string{"a <b>"}}, `"a <b>"`},
		{Request{Inputs: []string{"a"}, InputList: true}, `["a"]`},
		{Request{Inputs: []string{"a", "b"}, Options: fields}, `["a","b"]`},
		{Request{InputIDs: [][]int{{1, 2}}}, `[1,2]`},
		{Request{InputIDs: [][]int{{1, 2}, {3}}}, `[[1,2],[3]]`},
		{Request{Prompt: "p", MaxTokens: 5}, `"p"`},
		{Request{PromptIDs: []int{7}, InputList: true}, `[[7]]`},
	} {
		r := c.Do(context.Background(), tc.req, newClock())
		if !r.OK() || r.CompletionTokens != 0 || r.PromptTokens <= 0 || r.FirstTokenNS != 0 || len(r.ChunkNS) != 0 {
			t.Fatalf("%+v: %s: %s (usage %d/%d, first %d)", tc.req, r.ErrorClass, r.ErrorMessage, r.PromptTokens, r.CompletionTokens, r.FirstTokenNS)
		}
		got := rc.last(t)
		checkKeys(t, got.body, embeddingsKeys)
		checkRaw(t, got.body, map[string]string{"model": `"m"`, "input": tc.input, "user": `"bench"`})
		if tc.req.Options != nil {
			checkRaw(t, got.body, map[string]string{"encoding_format": `"float"`, "dimensions": `8`})
		}
		if got.path != "/v1/embeddings" || got.head.Get("Accept") != "application/json" {
			t.Errorf("path %s, accept %q", got.path, got.head.Get("Accept"))
		}
	}
}

// An option the API's body has no member for fails on this machine, naming it; so do a
// conversation the API cannot take and logged members that repeat a key the body has.
func TestAPIBodyErrors(t *testing.T) {
	rc := &apiRecorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	c := newClient(t, srv.URL, APIChat, nil)
	tool := []chat.Message{{Role: "assistant", ToolCalls: []chat.ToolCall{{Type: "function"}}}}
	for _, tc := range []struct {
		req  Request
		want string
	}{
		{Request{API: APIResponses, Prompt: "x", Options: &Options{Stop: []string{"."}}}, "option stop"},
		{Request{API: APIResponses, Prompt: "x", Options: &Options{Seed: ptr(int64(1))}}, "option seed"},
		{Request{API: APIResponses, Prompt: "x", Options: &Options{N: 2}}, "option n"},
		{Request{API: APIResponses, Prompt: "x", Options: &Options{PresencePenalty: ptr(0.0)}}, "option presence_penalty"},
		{Request{API: APIMessages, Prompt: "x", Options: &Options{ResponseFormat: json.RawMessage(`{}`)}}, "option response_format"},
		{Request{API: APIMessages, Messages: []chat.Message{{Role: "system", Content: "s"}}}, "after the system prompt"},
		{Request{API: APIMessages, Messages: []chat.Message{{Role: "user"}, {Role: "system"}}}, `role "system"`},
		{Request{API: APIResponses, Messages: tool}, "tool calls"},
		{Request{API: APIEmbeddings, Prompt: "x", Options: &Options{Temperature: ptr(0.0)}}, "option temperature"},
		{Request{API: APIEmbeddings, Prompt: "x", Options: &Options{Stream: ptr(true)}}, "option stream"},
		{Request{API: APIEmbeddings, Inputs: []string{"a"}, InputIDs: [][]int{{1}}}, "both"},
		{Request{API: APIResponses, Prompt: "x", Options: &Options{Temperature: ptr(0.0), Fields: json.RawMessage(`{"temperature":1}`)}}, `"temperature"`},
		{Request{API: APIChat, Prompt: "x", MaxTokens: 3, Options: &Options{Fields: json.RawMessage(`{"max_tokens":3}`)}}, `"max_tokens"`},
		{Request{API: APIChat, Prompt: "x", Options: &Options{Fields: json.RawMessage(`{"a":1,"a":2}`)}}, `"a" twice`},
		{Request{API: APIChat, Prompt: "x", Options: &Options{Fields: json.RawMessage(`[1]`)}}, "not a JSON object"},
		{Request{API: "rerank", Prompt: "x"}, `"rerank"`},
	} {
		r := c.Do(context.Background(), tc.req, newClock())
		if r.ErrorClass != ErrClient || !strings.Contains(r.ErrorMessage, tc.want) {
			t.Errorf("%+v: %s %q, want client naming %s", tc.req, r.ErrorClass, r.ErrorMessage, tc.want)
		}
		if want := tc.req.API; (want == "rerank") != (r.API == "") || (r.API != "" && r.API != want) {
			t.Errorf("%+v: Response.API %q", tc.req, r.API)
		}
	}
	if len(rc.reqs) != 0 {
		t.Fatalf("%d requests sent", len(rc.reqs))
	}
}

// On chat and completions the logged members are spliced too (a key the encoder did not
// write may be among them: max_tokens beside a max_completion_tokens cap); parallel_tool_calls
// false and max_completion_tokens go as logged on both; an ExtraBody key that is also a
// logged member is sent once, with the extra value.
func TestOpenAIFields(t *testing.T) {
	rc := &apiRecorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	c := newClient(t, srv.URL, APIChat, func(c *Config) { c.ExtraBody = map[string]any{"top_k": 9} })
	for _, api := range []string{APIChat, APICompletions} {
		o := &Options{ParallelToolCalls: ptr(false), MaxTokensField: MaxCompletionTokens,
			Fields: json.RawMessage(`{"logit_bias":{"50256":-100},"top_k":5,"max_tokens":8}`)}
		r := c.Do(context.Background(), Request{API: api, Prompt: "hi", MaxTokens: 3, Options: o}, newClock())
		if !r.OK() {
			t.Fatalf("%s: %s: %s", api, r.ErrorClass, r.ErrorMessage)
		}
		got := rc.last(t)
		checkRaw(t, got.body, map[string]string{"parallel_tool_calls": `false`, "max_completion_tokens": `3`,
			"logit_bias": `{"50256":-100}`, "top_k": `9`, "max_tokens": `8`})
		if n := strings.Count(string(got.raw), `"top_k"`); n != 1 {
			t.Errorf("%s: top_k %d times in %s", api, n, got.raw)
		}
	}
}

// A body encoded ahead remembers its API: a chat client sends it to /v1/messages and judges
// the answer as a Messages stream.
func TestEncodedRemembersAPI(t *testing.T) {
	rc := &apiRecorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	c := newClient(t, srv.URL, APIChat, nil)
	e, err := c.Encode(Request{API: APIMessages, Prompt: "hi", MaxTokens: 3})
	if err != nil || e.API() != APIMessages {
		t.Fatalf("encode: %v (API %q)", err, e.API())
	}
	r := c.Do(context.Background(), Request{Encoded: e, ID: "1"}, newClock())
	if !r.OK() || r.API != APIMessages || len(r.ChunkNS) != 3 || r.PromptTokens != 25 {
		t.Fatalf("%s: %s (API %q, %d chunks, prompt %d)", r.ErrorClass, r.ErrorMessage, r.API, len(r.ChunkNS), r.PromptTokens)
	}
	if got := rc.last(t); got.path != "/v1/messages" || got.head.Get("Anthropic-Version") == "" {
		t.Fatalf("sent to %s with headers %v", got.path, got.head)
	}
	if r := c.Do(context.Background(), Request{Encoded: e, API: APIChat}, newClock()); r.ErrorClass != ErrClient {
		t.Fatalf("an encoded body sent as another API: %s %s", r.ErrorClass, r.ErrorMessage)
	}
}

// TestPriorityField: a request's priority is sent as Config.PriorityField, never twice: a
// logged body holding the field keeps its own, and a client without the field sends none.
func TestPriorityField(t *testing.T) {
	rc := &apiRecorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	c := newClient(t, srv.URL, APIChat, func(c *Config) { c.PriorityField = "priority" })
	plain := newClient(t, srv.URL, APIChat, nil)
	p := 7
	msgs := []chat.Message{{Role: "user", Content: "hi"}}
	for _, tc := range []struct {
		c    *Client
		req  Request
		want string // "" for no priority member
	}{
		{c, Request{Messages: msgs, MaxTokens: 2, Priority: &p}, "7"},
		{c, Request{Messages: msgs, MaxTokens: 2, Priority: &p, Options: &Options{Fields: json.RawMessage(`{"priority":-1}`)}}, "-1"},
		{c, Request{Messages: msgs, MaxTokens: 2}, ""},
		{plain, Request{Messages: msgs, MaxTokens: 2, Priority: &p}, ""},
	} {
		if r := tc.c.Do(context.Background(), tc.req, newClock()); !r.OK() {
			t.Fatalf("%s: %s", r.ErrorClass, r.ErrorMessage)
		}
		got := rc.last(t)
		if v, ok := got.body["priority"]; string(v) != tc.want || ok != (tc.want != "") || bytes.Count(got.raw, []byte(`"priority"`)) > 1 {
			t.Errorf("body %s: priority %q, want %q once", got.raw, v, tc.want)
		}
	}
}

// TestAdapterField: a request's adapter goes as each engine takes it: the adapter's name as
// "model" by default (vLLM), the base as "model" and lora_path (SGLang) or lora ids
// (llama.cpp) otherwise; a logged body's own field wins, verbatim bodies get it too, and a
// llama.cpp adapter the server did not list fails before the send.
func TestAdapterField(t *testing.T) {
	rc := &apiRecorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	vllm := newClient(t, srv.URL, APIChat, nil)
	sgl := newClient(t, srv.URL, APIChat, func(c *Config) { c.AdapterField = "lora_path" })
	llama := newClient(t, srv.URL, APIChat, func(c *Config) {
		c.AdapterField, c.AdapterIDs, c.AdapterListed = "lora", map[string]int{"a": 0, "b": 1}, []int{0, 1, 2}
	})
	msgs := []chat.Message{{Role: "user", Content: "hi"}}
	req := func(adapter string) Request {
		return Request{Messages: msgs, MaxTokens: 2, Model: "base", Adapter: adapter}
	}
	verbatim := Request{Body: []byte(`{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"max_tokens":2}` + "\n"), Model: "base", Adapter: "b"}
	logged := req("b")
	logged.Options = &Options{Fields: json.RawMessage(`{"lora":[{"id":1,"scale":0.5}]}`)}
	for _, tc := range []struct {
		name              string
		c                 *Client
		req               Request
		model, field, val string // field "" for none
	}{
		{"vllm", vllm, req("a"), `"a"`, "", ""},
		{"vllm base", vllm, req(""), `"base"`, "", ""},
		{"sglang", sgl, req("a"), `"base"`, "lora_path", `"a"`},
		{"sglang base", sgl, req(""), `"base"`, "", ""},
		{"llama.cpp", llama, req("b"), `"base"`, "lora", `[{"id":1,"scale":1.0},{"id":0,"scale":0.0},{"id":2,"scale":0.0}]`},
		{"llama.cpp base", llama, req(""), `"base"`, "lora", `[{"id":0,"scale":0.0},{"id":1,"scale":0.0},{"id":2,"scale":0.0}]`},
		{"llama.cpp logged", llama, logged, `"base"`, "lora", `[{"id":1,"scale":0.5}]`},
		{"llama.cpp verbatim", llama, verbatim, `"base"`, "lora", `[{"id":1,"scale":1.0},{"id":0,"scale":0.0},{"id":2,"scale":0.0}]`},
		{"sglang verbatim", sgl, verbatim, `"base"`, "lora_path", `"b"`},
		{"vllm verbatim", vllm, verbatim, `"b"`, "", ""},
	} {
		if r := tc.c.Do(context.Background(), tc.req, newClock()); !r.OK() {
			t.Fatalf("%s: %s: %s", tc.name, r.ErrorClass, r.ErrorMessage)
		}
		got := rc.last(t)
		if m := string(got.body["model"]); m != tc.model {
			t.Errorf("%s: body %s: model %s, want %s", tc.name, got.raw, m, tc.model)
		}
		for _, f := range []string{"lora", "lora_path"} {
			v, ok := got.body[f]
			want := f == tc.field
			if ok != want || (want && (string(v) != tc.val || bytes.Count(got.raw, []byte(`"`+f+`"`)) != 1)) {
				t.Errorf("%s: body %s: %s %q, want %q once", tc.name, got.raw, f, v, tc.val)
			}
		}
	}
	if r := llama.Do(context.Background(), req("c"), newClock()); r.OK() || !strings.Contains(r.ErrorMessage, `adapter "c"`) {
		t.Errorf("an adapter the server did not list: %s %s, want an error naming it", r.ErrorClass, r.ErrorMessage)
	}
	if _, err := New(Config{BaseURL: srv.URL, Model: "m", AdapterField: "adapter"}); err == nil {
		t.Error("an unknown adapter field was taken")
	}
	if _, err := New(Config{BaseURL: srv.URL, Model: "m", AdapterField: "lora", AdapterIDs: map[string]int{"a": 3}, AdapterListed: []int{0}}); err == nil {
		t.Error("an adapter id the server did not list was taken")
	}
}
