package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-replay/replay/chat"
)

// newClock returns a monotonic nanosecond clock starting near zero, as the scheduler's is.
func newClock() func() int64 {
	start := time.Now()
	return func() int64 { return int64(time.Since(start)) + 1 }
}

func newClient(t testing.TB, baseURL, api string, mut func(*Config)) *Client {
	t.Helper()
	cfg := Config{BaseURL: baseURL + "/v1", API: api, Model: "m", APIKey: "sk-test-secret", Timeout: 5 * time.Second}
	if mut != nil {
		mut(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sse writes one event and flushes it, as inference servers do per token.
func sse(w http.ResponseWriter, data string) {
	fmt.Fprintf(w, "data: %s\n\n", data)
	w.(http.Flusher).Flush()
}

func sseHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(200)
}

// vllmChat streams like vLLM's chat endpoint: a role chunk, n content chunks, a finish chunk,
// the usage chunk (empty choices, cached tokens in prompt_tokens_details), [DONE].
func vllmChat(n int, gap time.Duration, got *map[string]any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if got != nil {
			b, _ := io.ReadAll(r.Body)
			m := map[string]any{}
			if err := json.Unmarshal(b, &m); err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			m["_auth"] = r.Header.Get("Authorization")
			m["_path"] = r.URL.Path
			*got = m
		}
		sseHeaders(w)
		head := `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[`
		sse(w, head+`{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}`)
		for i := 0; i < n; i++ {
			time.Sleep(gap)
			sse(w, head+fmt.Sprintf(`{"index":0,"delta":{"content":" tok%d"},"logprobs":null,"finish_reason":null}],"usage":null}`, i))
		}
		sse(w, head+`{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"length","stop_reason":null}],"usage":null}`)
		sse(w, head+`],"usage":{"prompt_tokens":120,"total_tokens":`+fmt.Sprint(120+n)+`,"completion_tokens":`+fmt.Sprint(n)+`,"prompt_tokens_details":{"cached_tokens":64}}}`)
		sse(w, "[DONE]")
	}
}

func TestVLLMChat(t *testing.T) {
	var got map[string]any
	srv := httptest.NewServer(vllmChat(20, 0, &got))
	defer srv.Close()
	c := newClient(t, srv.URL, APIChat, func(c *Config) {
		c.ExtraBody = map[string]any{"ignore_eos": true, "min_tokens": 20}
	})
	r := c.Do(context.Background(), Request{
		Messages:  []chat.Message{{Role: "system", Content: "be brief <&>"}, {Role: "user", Content: "hi"}},
		MaxTokens: 20,
	}, newClock())
	if !r.OK() {
		t.Fatalf("error %s: %s", r.ErrorClass, r.ErrorMessage)
	}
	if len(r.ChunkNS) != 20 || r.PromptTokens != 120 || r.CompletionTokens != 20 || r.CachedTokens != 64 || r.HTTPStatus != 200 {
		t.Fatalf("chunks %d usage %d/%d/%d status %d", len(r.ChunkNS), r.PromptTokens, r.CompletionTokens, r.CachedTokens, r.HTTPStatus)
	}
	checkOrder(t, r)
	if got["_path"] != "/v1/chat/completions" || got["_auth"] != "Bearer sk-test-secret" || got["model"] != "m" ||
		got["stream"] != true || got["max_tokens"] != 20.0 || got["ignore_eos"] != true || got["min_tokens"] != 20.0 {
		t.Fatalf("request body %v", got)
	}
	if so, _ := got["stream_options"].(map[string]any); so["include_usage"] != true {
		t.Fatalf("stream_options %v", got["stream_options"])
	}
	msgs, _ := got["messages"].([]any)
	if len(msgs) != 2 || msgs[0].(map[string]any)["content"] != "be brief <&>" || msgs[1].(map[string]any)["role"] != "user" {
		t.Fatalf("messages %v", got["messages"])
	}
}

func checkOrder(t *testing.T, r Response) {
	t.Helper()
	if r.SentNS <= 0 || r.FirstTokenNS < r.SentNS || r.LastTokenNS < r.FirstTokenNS || r.DoneNS < r.LastTokenNS {
		t.Fatalf("timestamps out of order: sent %d first %d last %d done %d", r.SentNS, r.FirstTokenNS, r.LastTokenNS, r.DoneNS)
	}
	// The request's last byte leaves after the hand-over and before any answer can come.
	if r.WrittenNS < r.SentNS || r.WrittenNS > r.FirstTokenNS {
		t.Fatalf("written %d outside [sent %d, first token %d]", r.WrittenNS, r.SentNS, r.FirstTokenNS)
	}
	if len(r.ChunkNS) > 0 && (r.ChunkNS[0] != r.FirstTokenNS || r.ChunkNS[len(r.ChunkNS)-1] != r.LastTokenNS) {
		t.Fatalf("chunk times %v vs first %d last %d", r.ChunkNS, r.FirstTokenNS, r.LastTokenNS)
	}
	for i := 1; i < len(r.ChunkNS); i++ {
		if r.ChunkNS[i] < r.ChunkNS[i-1] {
			t.Fatalf("chunk %d at %d before chunk %d at %d", i, r.ChunkNS[i], i-1, r.ChunkNS[i-1])
		}
	}
}

// Chunk times are taken as events arrive, not when the stream ends.
func TestChunkTimesFollowArrival(t *testing.T) {
	const gap = 15 * time.Millisecond
	srv := httptest.NewServer(vllmChat(5, gap, nil))
	defer srv.Close()
	c := newClient(t, srv.URL, APIChat, nil)
	r := c.Do(context.Background(), Request{Prompt: "hi", MaxTokens: 5}, newClock())
	if !r.OK() {
		t.Fatalf("%s: %s", r.ErrorClass, r.ErrorMessage)
	}
	checkOrder(t, r)
	for i := 1; i < len(r.ChunkNS); i++ {
		if d := time.Duration(r.ChunkNS[i] - r.ChunkNS[i-1]); d < gap-2*time.Millisecond {
			t.Fatalf("chunks %d and %d only %v apart, server waited %v", i-1, i, d, gap)
		}
	}
	if d := time.Duration(r.FirstTokenNS - r.SentNS); d < gap {
		t.Fatalf("first token %v after send, server waited %v", d, gap)
	}
}

// ollamaCompletions streams like Ollama's /v1/completions: a zero usage on every chunk, the
// real usage in a last chunk with empty choices, no cached tokens.
func ollamaCompletions(n int, got *map[string]any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if got != nil {
			m := map[string]any{}
			_ = json.Unmarshal(b, &m)
			m["_path"] = r.URL.Path
			*got = m
		}
		sseHeaders(w)
		zero := `"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}`
		for i := 0; i < n; i++ {
			fin := "null"
			if i == n-1 {
				fin = `"length"`
			}
			sse(w, fmt.Sprintf(`{"id":"cmpl-9","object":"text_completion","created":1,"model":"m","system_fingerprint":"fp_ollama","choices":[{"text":"w%d","index":0,"finish_reason":%s}],%s}`, i, fin, zero))
		}
		sse(w, `{"id":"cmpl-9","object":"text_completion","created":1,"model":"m","system_fingerprint":"fp_ollama","choices":[],"usage":{"prompt_tokens":37,"completion_tokens":`+fmt.Sprint(n)+`,"total_tokens":50}}`)
		sse(w, `{"id":"cmpl-9","object":"text_completion","created":1,"model":"m","choices":[],`+zero+`}`)
		sse(w, "[DONE]")
	}
}

func TestOllamaCompletionsZeroUsage(t *testing.T) {
	var got map[string]any
	srv := httptest.NewServer(ollamaCompletions(13, &got))
	defer srv.Close()
	c := newClient(t, srv.URL, APICompletions, nil)
	r := c.Do(context.Background(), Request{PromptIDs: []int{1, 15043, 3186}, MaxTokens: 13}, newClock())
	if !r.OK() {
		t.Fatalf("%s: %s", r.ErrorClass, r.ErrorMessage)
	}
	if len(r.ChunkNS) != 13 || r.PromptTokens != 37 || r.CompletionTokens != 13 || r.CachedTokens != -1 {
		t.Fatalf("chunks %d usage %d/%d/%d", len(r.ChunkNS), r.PromptTokens, r.CompletionTokens, r.CachedTokens)
	}
	checkOrder(t, r)
	ids, _ := got["prompt"].([]any)
	if got["_path"] != "/v1/completions" || len(ids) != 3 || ids[1] != 15043.0 {
		t.Fatalf("request %v", got)
	}
	// A text prompt goes as a string.
	r = c.Do(context.Background(), Request{Prompt: "Once upon", MaxTokens: 13}, newClock())
	if !r.OK() || got["prompt"] != "Once upon" {
		t.Fatalf("%s %v", r.ErrorClass, got["prompt"])
	}
}

func TestOmitUsageAndOverride(t *testing.T) {
	var got map[string]any
	// The server streams the overriding max_tokens (7): fewer with finish_reason "length"
	// would be ErrShort, judged against what was sent, not Request.MaxTokens.
	srv := httptest.NewServer(vllmChat(7, 0, &got))
	defer srv.Close()
	c := newClient(t, srv.URL, APIChat, func(c *Config) {
		c.OmitUsage = true
		c.ExtraBody = map[string]any{"max_tokens": 7, "top_k": 1}
	})
	r := c.Do(context.Background(), Request{Prompt: "x", MaxTokens: 3}, newClock())
	if !r.OK() {
		t.Fatal(r.ErrorMessage)
	}
	if _, has := got["stream_options"]; has || got["max_tokens"] != 7.0 || got["top_k"] != 1.0 {
		t.Fatalf("body %v", got)
	}
	if _, err := New(Config{BaseURL: "http://x/v1", API: APIChat, Model: "m", ExtraBody: map[string]any{"stream": false}}); err == nil {
		t.Fatal("stream override accepted")
	}
}

func TestHTTPErrors(t *testing.T) {
	long := strings.Repeat("é", 600) // 1,200 bytes, two per rune
	cases := []struct {
		name, body string
		status     int
		class, msg string
	}{
		{"vllm 400", `{"object":"error","message":"This model's maximum context length is 4096 tokens","type":"BadRequestError","param":null,"code":400}`, 400, ErrHTTP4xx, "This model's maximum context length is 4096 tokens"},
		{"openai 429", `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, 429, ErrHTTP429, "Rate limit reached"},
		{"401 string", `{"error":"invalid api key"}`, 401, ErrHTTP4xx, "invalid api key"},
		{"plain 500", "Internal Server Error\n", 500, ErrHTTP5xx, "Internal Server Error"},
		{"503 empty", "", 503, ErrHTTP5xx, "503 Service Unavailable"},
		{"long", `{"error":{"message":"` + long + `"}}`, 400, ErrHTTP4xx, long[:500] + "…"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			r := newClient(t, srv.URL, APIChat, nil).Do(context.Background(), Request{Prompt: "x"}, newClock())
			if r.ErrorClass != tc.class || r.ErrorMessage != tc.msg || r.HTTPStatus != tc.status {
				t.Fatalf("got %q %q %d, want %q %q %d", r.ErrorClass, r.ErrorMessage, r.HTTPStatus, tc.class, tc.msg, tc.status)
			}
			if strings.Contains(r.ErrorMessage, "sk-test-secret") {
				t.Fatal("key in message")
			}
		})
	}
}

// abort ends the handler by dropping the connection mid-response.
func abort() { panic(http.ErrAbortHandler) }

func TestStreamBroken(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sseHeaders(w)
		for i := 0; i < 3; i++ {
			sse(w, `{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`)
		}
		abort()
	}))
	defer srv.Close()
	r := newClient(t, srv.URL, APIChat, nil).Do(context.Background(), Request{Prompt: "x"}, newClock())
	if r.ErrorClass != ErrStreamBroken || len(r.ChunkNS) != 3 || r.HTTPStatus != 200 || r.DoneNS < r.LastTokenNS {
		t.Fatalf("%q %q chunks %d", r.ErrorClass, r.ErrorMessage, len(r.ChunkNS))
	}
}

// The body ends without [DONE]: after a finish_reason the stream is complete but not
// well-formed (the API promises [DONE]); before one it was cut.
func TestCleanEOFWithoutDone(t *testing.T) {
	for _, tc := range []struct {
		name, last string
		class      string
	}{
		{"finished", `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`, ErrBadStream},
		{"unfinished", `{"choices":[{"index":0,"delta":{"content":"b"},"finish_reason":null}]}`, ErrStreamBroken},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				sseHeaders(w)
				sse(w, `{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`)
				sse(w, tc.last)
			}))
			defer srv.Close()
			r := newClient(t, srv.URL, APIChat, nil).Do(context.Background(), Request{Prompt: "x"}, newClock())
			if r.ErrorClass != tc.class {
				t.Fatalf("class %q (%s), want %q", r.ErrorClass, r.ErrorMessage, tc.class)
			}
			if tc.class == ErrBadStream && !strings.Contains(r.ErrorMessage, "without data: [DONE]") {
				t.Fatalf("message %q", r.ErrorMessage)
			}
		})
	}
}

func TestStreamErrorFrame(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sseHeaders(w)
		sse(w, `{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`)
		sse(w, `{"error":{"object":"error","message":"engine died: CUDA \"OOM\"","type":"InternalServerError","code":500}}`)
		sse(w, "[DONE]")
	}))
	defer srv.Close()
	r := newClient(t, srv.URL, APIChat, nil).Do(context.Background(), Request{Prompt: "x"}, newClock())
	if r.ErrorClass != ErrHTTP5xx || r.ErrorMessage != `engine died: CUDA "OOM"` || len(r.ChunkNS) != 1 {
		t.Fatalf("%q %q %d", r.ErrorClass, r.ErrorMessage, len(r.ChunkNS))
	}
}

func TestNotSSE(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"error":{"message":"streaming not supported"}}`)
	}))
	defer srv.Close()
	r := newClient(t, srv.URL, APIChat, nil).Do(context.Background(), Request{Prompt: "x"}, newClock())
	if r.ErrorClass != ErrBadStream || !strings.Contains(r.ErrorMessage, "not an SSE stream") ||
		!strings.Contains(r.ErrorMessage, "streaming not supported") {
		t.Fatalf("%q %q", r.ErrorClass, r.ErrorMessage)
	}
}

// Variants of SSE framing that servers use: CRLF, no space after "data:", comments, event
// and id fields, several events in one write, [DONE] without a final newline.
func TestFramingVariants(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sseHeaders(w)
		io.WriteString(w, ": keep-alive\r\n\r\nevent: message\r\nid: 1\r\ndata:{\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\r\n\r\n")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"think\"}}]}\n\ndata:  {\"choices\":[{\"text\":\"c\",\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":3}}\n\n")
		io.WriteString(w, "data: [DONE]")
	}))
	defer srv.Close()
	r := newClient(t, srv.URL, APIChat, nil).Do(context.Background(), Request{Prompt: "x"}, newClock())
	if !r.OK() || len(r.ChunkNS) != 3 || r.PromptTokens != 5 || r.CompletionTokens != 3 {
		t.Fatalf("%q %q chunks %d usage %d/%d", r.ErrorClass, r.ErrorMessage, len(r.ChunkNS), r.PromptTokens, r.CompletionTokens)
	}
}

// A frame far larger than the read buffer is reassembled.
func TestLongLine(t *testing.T) {
	big := strings.Repeat("x", 200<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sseHeaders(w)
		sse(w, `{"choices":[{"delta":{"content":"`+big+`"}}]}`)
		sse(w, `{"choices":[{"delta":{"content":"y"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2}}`)
		sse(w, "[DONE]")
	}))
	defer srv.Close()
	r := newClient(t, srv.URL, APIChat, nil).Do(context.Background(), Request{Prompt: "x"}, newClock())
	if !r.OK() || len(r.ChunkNS) != 2 {
		t.Fatalf("%q %q chunks %d", r.ErrorClass, r.ErrorMessage, len(r.ChunkNS))
	}
}

// hang streams one token then waits until the client goes away.
func hang(w http.ResponseWriter, r *http.Request) {
	sseHeaders(w)
	sse(w, `{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`)
	waitGone(r)
}

// waitGone waits until the client drops the request (the body must be read first, or the
// server cannot notice), at most 10 s.
func waitGone(r *http.Request) {
	io.Copy(io.Discard, r.Body)
	select {
	case <-r.Context().Done():
	case <-time.After(10 * time.Second):
	}
}

func TestTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(hang))
	defer srv.Close()
	c := newClient(t, srv.URL, APIChat, func(c *Config) { c.Timeout = 100 * time.Millisecond })
	clock := newClock()
	r := c.Do(context.Background(), Request{Prompt: "x"}, clock)
	if r.ErrorClass != ErrTimeout || len(r.ChunkNS) != 1 {
		t.Fatalf("%q %q chunks %d", r.ErrorClass, r.ErrorMessage, len(r.ChunkNS))
	}
	if d := time.Duration(r.DoneNS - r.SentNS); d < 100*time.Millisecond || d > 2*time.Second {
		t.Fatalf("timed out after %v", d)
	}
	// A server that never answers the headers times out too.
	srv2 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { waitGone(r) }))
	defer srv2.Close()
	r = newClient(t, srv2.URL, APIChat, func(c *Config) { c.Timeout = 50 * time.Millisecond }).Do(context.Background(), Request{Prompt: "x"}, clock)
	if r.ErrorClass != ErrTimeout || r.HTTPStatus != 0 {
		t.Fatalf("%q %q", r.ErrorClass, r.ErrorMessage)
	}
}

func TestCanceled(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(hang))
	defer srv.Close()
	c := newClient(t, srv.URL, APIChat, nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	r := c.Do(ctx, Request{Prompt: "x"}, newClock())
	if r.ErrorClass != ErrCanceled || len(r.ChunkNS) != 1 {
		t.Fatalf("%q %q", r.ErrorClass, r.ErrorMessage)
	}
	// Cancelled before sending.
	r = c.Do(ctx, Request{Prompt: "x"}, newClock())
	if r.ErrorClass != ErrCanceled {
		t.Fatalf("%q %q", r.ErrorClass, r.ErrorMessage)
	}
}

func TestConnect(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	r := newClient(t, "http://"+addr, APIChat, nil).Do(context.Background(), Request{Prompt: "x"}, newClock())
	if r.ErrorClass != ErrConnect || r.HTTPStatus != 0 || !strings.Contains(r.ErrorMessage, "refused") {
		t.Fatalf("%q %q", r.ErrorClass, r.ErrorMessage)
	}
}

// Sequential requests reuse one connection: the client reads each body to its end.
func TestConnectionReuse(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(vllmChat(3, 0, nil))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c := newClient(t, srv.URL, APIChat, nil)
	for i := 0; i < 50; i++ {
		if r := c.Do(context.Background(), Request{Prompt: "x"}, newClock()); !r.OK() {
			t.Fatal(r.ErrorMessage)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("%d connections for 50 sequential requests", n)
	}
}

// Arbitrary bytes from the server never panic and always end in a Response with a class.
func TestGarbageStreams(t *testing.T) {
	bodies := []struct{ body, class string }{
		{"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}\n\n", ErrStreamBroken},
		{"data: {{{{[[[[\"\n\n", ErrStreamBroken},
		{"data: \x00\xff\xfe\n\ndata: [DONE", ErrStreamBroken},
		{"\xff\xfe\xfd", ErrBadStream},
		// An overflowing count is no count: no usage although it was asked for.
		{"data: {\"usage\":{\"prompt_tokens\":99999999999999999999}}\n\ndata: [DONE]\n\n", ErrBadStream},
		{"data: {\"choices\":\"x\",\"usage\":[1],\"error\":null}\n\ndata: [DONE]\n\n", ErrBadStream},
		{strings.Repeat("data: {\"choices\":[{\"delta\":{\"content\":\"\\\"\"}}]}\n", 100), ErrStreamBroken},
	}
	for i, tc := range bodies {
		body := tc.body
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sseHeaders(w)
			io.WriteString(w, body)
		}))
		r := newClient(t, srv.URL, APIChat, nil).Do(context.Background(), Request{Prompt: "x"}, newClock())
		srv.Close()
		if r.HTTPStatus != 200 || r.DoneNS == 0 || r.ErrorClass != tc.class {
			t.Fatalf("body %d: want %q, got %+v", i, tc.class, r)
		}
	}
}

func TestNewRejects(t *testing.T) {
	for _, cfg := range []Config{
		{BaseURL: "127.0.0.1:8000", API: APIChat, Model: "m"},
		{BaseURL: "http://h/v1", API: "rerank", Model: "m"},
		{BaseURL: "http://h/v1", API: APIChat},
		{BaseURL: "http://h/v1", API: APIChat, Model: "m", Timeout: -1},
		{BaseURL: "http://h/v1", API: APIChat, Model: "m", StallTimeout: -1},
		{BaseURL: "http://h/v1", API: APIChat, Model: "m", APIKey: "a\nb"},
		{BaseURL: "http://h/v1", API: APIChat, Model: "m", ExtraBody: map[string]any{"f": func() {}}},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("accepted %+v", cfg)
		} else if cfg.APIKey != "" && strings.Contains(err.Error(), cfg.APIKey) {
			t.Errorf("key in error %v", err)
		}
	}
}

// A server that keeps the stream open after [DONE] does not hold the request: the drain is
// cut after drainWait, the request is a success and ends at [DONE].
func TestOpenAfterDone(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sseHeaders(w)
		sse(w, `{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`)
		sse(w, "[DONE]")
		waitGone(r)
	}))
	defer srv.Close()
	start := time.Now()
	r := newClient(t, srv.URL, APIChat, nil).Do(context.Background(), Request{Prompt: "x"}, newClock())
	if !r.OK() || len(r.ChunkNS) != 1 {
		t.Fatalf("%q %q", r.ErrorClass, r.ErrorMessage)
	}
	if d := time.Since(start); d > drainWait+time.Second {
		t.Fatalf("took %v", d)
	}
	if d := time.Duration(r.DoneNS - r.LastTokenNS); d > drainWait/2 {
		t.Fatalf("done %v after the last token: DoneNS should be the [DONE] time", d)
	}
}
