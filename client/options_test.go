package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// recorder is a loopback server that keeps every request body and answers each with an SSE
// stream or, for stream false, one JSON completion.
type recorder struct {
	mu     sync.Mutex
	bodies [][]byte
	paths  []string
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.bodies = append(rc.bodies, b)
	rc.paths = append(rc.paths, r.URL.Path)
	rc.mu.Unlock()
	var m struct {
		Stream bool `json:"stream"`
		N      int  `json:"n"`
	}
	_ = json.Unmarshal(b, &m)
	if !m.Stream {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, jsonAnswer(max(1, m.N), 3, 3*max(1, m.N)))
		return
	}
	vllmChat(3, 0, nil)(w, r)
}

// last is the last body received, decoded to its top-level fields.
func (rc *recorder) last(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(rc.bodies[len(rc.bodies)-1], &m); err != nil {
		t.Fatalf("body %s: %v", rc.bodies[len(rc.bodies)-1], err)
	}
	return m
}

// jsonAnswer is a non-streamed chat completion of n choices, each ending at "length", with
// completion tokens in usage.
func jsonAnswer(n, each, completion int) string {
	var choices []string
	for i := range n {
		choices = append(choices, fmt.Sprintf(`{"index":%d,"message":{"role":"assistant","content":"%s"},"finish_reason":"length"}`, i, bytes.Repeat([]byte("x "), each)))
	}
	return fmt.Sprintf(`{"id":"c1","object":"chat.completion","choices":[%s],"usage":{"prompt_tokens":11,"completion_tokens":%d,"total_tokens":%d}}`,
		join(choices), completion, 11+completion)
}

func join(s []string) string {
	var b bytes.Buffer
	for i, x := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(x)
	}
	return b.String()
}

func ptr[T any](v T) *T { return &v }

// allOptions sets every option, with the values go-openai's omitempty would drop.
func allOptions() *Options {
	return &Options{
		Temperature: ptr(0.0), TopP: ptr(1.0), N: 2, Seed: ptr(int64(0)), Stop: []string{"\n\n", "END"},
		PresencePenalty: ptr(0.0), FrequencyPenalty: ptr(0.123456789), Logprobs: ptr(false), TopLogprobs: ptr(0),
		MaxTokensField:    MaxCompletionTokens,
		Tools:             json.RawMessage(`[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"}}}}}]`),
		ToolChoice:        json.RawMessage(`"auto"`),
		ParallelToolCalls: ptr(false),
		ResponseFormat:    json.RawMessage(`{"type":"json_schema","json_schema":{"name":"s","schema":{"type":"object"}}}`),
	}
}

// Every option set is in the body with exactly its value, including those go-openai's
// omitempty float32 and bool fields would drop (temperature 0, top_p 1 is kept anyway, seed 0,
// logprobs false, top_logprobs 0) and raw JSON byte for byte (its key order kept).
func TestOptionsBody(t *testing.T) {
	rc := &recorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	c := newClient(t, srv.URL, APIChat, nil)
	o := allOptions()
	if r := c.Do(context.Background(), Request{Prompt: "hi", MaxTokens: 3, Options: o}, newClock()); !r.OK() {
		t.Fatalf("%s: %s", r.ErrorClass, r.ErrorMessage)
	}
	got := rc.last(t)
	want := map[string]string{
		"temperature": `0`, "top_p": `1`, "n": `2`, "seed": `0`, "stop": `["\n\n","END"]`,
		"presence_penalty": `0`, "frequency_penalty": `0.123456789`, "logprobs": `false`, "top_logprobs": `0`,
		"max_completion_tokens": `3`, "tools": string(o.Tools), "tool_choice": `"auto"`,
		"parallel_tool_calls": `false`, "response_format": string(o.ResponseFormat), "stream": `true`,
	}
	for k, v := range want {
		if string(got[k]) != v {
			t.Errorf("%s: got %s, want %s", k, got[k], v)
		}
	}
	if _, ok := got["max_tokens"]; ok {
		t.Errorf("max_tokens sent beside max_completion_tokens: %s", got["max_tokens"])
	}
}

// On completions the options travel too; logprobs is a count there and max_completion_tokens
// (not a go-openai completions field) is spliced raw.
func TestOptionsBodyCompletions(t *testing.T) {
	rc := &recorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	c := newClient(t, srv.URL, APICompletions, nil)
	o := &Options{Temperature: ptr(0.7), Seed: ptr(int64(42)), Logprobs: ptr(true), TopLogprobs: ptr(5), MaxTokensField: MaxCompletionTokens, Stream: ptr(false)}
	r := c.Do(context.Background(), Request{Prompt: "hi", MaxTokens: 3, Options: o}, newClock())
	if !r.OK() {
		t.Fatalf("%s: %s", r.ErrorClass, r.ErrorMessage)
	}
	got := rc.last(t)
	for k, v := range map[string]string{"temperature": `0.7`, "seed": `42`, "logprobs": `5`, "max_completion_tokens": `3`, "stream": `false`} {
		if string(got[k]) != v {
			t.Errorf("%s: got %s, want %s", k, got[k], v)
		}
	}
	for _, k := range []string{"max_tokens", "top_logprobs", "stream_options"} {
		if _, ok := got[k]; ok {
			t.Errorf("%s sent: %s", k, got[k])
		}
	}
}

// Without options no option key is sent (the run's shape before options existed).
func TestOptionsNoneSent(t *testing.T) {
	rc := &recorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	for _, api := range []string{APIChat, APICompletions} {
		c := newClient(t, srv.URL, api, nil)
		if r := c.Do(context.Background(), Request{Prompt: "hi", MaxTokens: 3}, newClock()); !r.OK() {
			t.Fatalf("%s: %s", r.ErrorClass, r.ErrorMessage)
		}
		got := rc.last(t)
		for _, k := range optionKeys {
			if _, ok := got[k]; ok {
				t.Errorf("%s: %s sent without options: %s", api, k, got[k])
			}
		}
	}
}

// An unforced request leaves ExtraBody's forcing keys out and keeps the rest; an ExtraBody
// key that an option also sets is sent once, with the extra value.
func TestUnforcedAndExtraWins(t *testing.T) {
	rc := &recorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	c := newClient(t, srv.URL, APIChat, func(c *Config) {
		c.ExtraBody = map[string]any{"ignore_eos": true, "min_tokens": 3, "top_k": 5, "temperature": 0.5}
	})
	o := &Options{Temperature: ptr(0.0)}
	for _, unforced := range []bool{false, true} {
		if r := c.Do(context.Background(), Request{Prompt: "hi", MaxTokens: 3, Options: o, Unforced: unforced}, newClock()); !r.OK() {
			t.Fatalf("%s: %s", r.ErrorClass, r.ErrorMessage)
		}
		got := rc.last(t)
		_, eos := got["ignore_eos"]
		_, minTok := got["min_tokens"]
		if eos == unforced || minTok == unforced || string(got["top_k"]) != "5" || string(got["temperature"]) != "0.5" {
			t.Errorf("unforced %v: body %v", unforced, got)
		}
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, b := range rc.bodies {
		if n := bytes.Count(b, []byte(`"temperature"`)); n != 1 {
			t.Errorf("temperature %d times in %s", n, b)
		}
	}
}

// A raw option that is not JSON fails the request on this machine, never a broken body.
func TestOptionsInvalidRaw(t *testing.T) {
	rc := &recorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	c := newClient(t, srv.URL, APIChat, nil)
	r := c.Do(context.Background(), Request{Prompt: "hi", Options: &Options{Tools: json.RawMessage(`[{`)}}, newClock())
	if r.ErrorClass != ErrClient || len(rc.bodies) != 0 {
		t.Fatalf("class %q (%s), %d bodies sent", r.ErrorClass, r.ErrorMessage, len(rc.bodies))
	}
}
