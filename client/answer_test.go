package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// serveJSON answers every request with body after delay, as a non-streamed server does.
func serveJSON(body string, delay time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(delay)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	}
}

// A non-streamed request is sent with stream false and no stream_options, asks for JSON, and
// its answer is measured end to end: usage read, no chunk times; n > 1 counts every choice.
func TestNonStreamed(t *testing.T) {
	var accept, body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		accept = r.Header.Get("Accept")
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		serveJSON(jsonAnswer(3, 4, 12), 20*time.Millisecond)(w, r)
	}))
	defer srv.Close()
	c := newClient(t, srv.URL, APIChat, func(c *Config) { c.StallTimeout = 5 * time.Millisecond })
	r := c.Do(context.Background(), Request{Prompt: "hi", MaxTokens: 4, Options: &Options{Stream: ptr(false), N: 3}}, newClock())
	if !r.OK() {
		t.Fatalf("%s: %s", r.ErrorClass, r.ErrorMessage)
	}
	if r.PromptTokens != 11 || r.CompletionTokens != 12 || len(r.ChunkNS) != 0 || r.FirstTokenNS != 0 || r.LastTokenNS != 0 {
		t.Fatalf("usage %d/%d chunks %d first %d last %d", r.PromptTokens, r.CompletionTokens, len(r.ChunkNS), r.FirstTokenNS, r.LastTokenNS)
	}
	if d := time.Duration(r.DoneNS - r.SentNS); d < 20*time.Millisecond {
		t.Fatalf("e2e %v, under the server's 20 ms (the stall timeout must not cut a non-streamed answer)", d)
	}
	if accept != "application/json" || !strings.Contains(body, `"stream":false`) || strings.Contains(body, "stream_options") {
		t.Fatalf("accept %q body %s", accept, body)
	}
}

// A non-streamed answer is judged as a stream is: what is wrong with it names its class.
func TestNonStreamedJudged(t *testing.T) {
	for _, tc := range []struct {
		name, body, class, msg string
	}{
		{"not JSON", "<html>oops</html>", ErrBadStream, "not a JSON completion"},
		{"SSE instead", "data: {\"choices\":[]}\n\ndata: [DONE]\n\n", ErrBadStream, "data: "},
		{"error object", `{"error":{"message":"model overloaded","code":503}}`, ErrHTTP5xx, "model overloaded"},
		{"no choices", `{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1}}`, ErrBadStream, "no choices"},
		{"no content", `{"choices":[{"message":{"content":null},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`, ErrBadStream, "no content"},
		{"no usage", `{"choices":[{"message":{"content":"x"},"finish_reason":"stop"}]}`, ErrBadStream, "no usage"},
		{"short", jsonAnswer(2, 4, 7), ErrShort, "2 choices at 7 completion tokens"},
		{"tool calls are content", `{"choices":[{"message":{"content":null,"tool_calls":[{"id":"1","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":9}}`, "", ""},
		{"completions text", `{"choices":[{"text":"abc","finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":4}}`, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(serveJSON(tc.body, 0))
			defer srv.Close()
			c := newClient(t, srv.URL, APIChat, nil)
			r := c.Do(context.Background(), Request{Prompt: "hi", MaxTokens: 4, Options: &Options{Stream: ptr(false)}}, newClock())
			if r.ErrorClass != tc.class || !strings.Contains(r.ErrorMessage, tc.msg) {
				t.Fatalf("class %q message %q, want %q with %q", r.ErrorClass, r.ErrorMessage, tc.class, tc.msg)
			}
		})
	}
}

// A non-streamed request canceled by its caller is canceled, like a stream.
func TestNonStreamedCanceled(t *testing.T) {
	srv := httptest.NewServer(serveJSON(jsonAnswer(1, 4, 4), 2*time.Second))
	defer srv.Close()
	c := newClient(t, srv.URL, APIChat, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	r := c.Do(ctx, Request{Prompt: "hi", MaxTokens: 4, Options: &Options{Stream: ptr(false)}}, newClock())
	if r.ErrorClass != ErrCanceled {
		t.Fatalf("class %q: %s", r.ErrorClass, r.ErrorMessage)
	}
}
