package client

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

// rawSSE answers every request with 200, an SSE content type and exactly body.
func rawSSE(t *testing.T, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		sseHeaders(w)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

const (
	okChunk = `data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}` + "\n\n"
	okFin   = `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"
	okUsage = `data: {"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":1}}` + "\n\n"
	okDone  = "data: [DONE]\n\n"
)

// Each way a 2xx answer fails to be an OpenAI stream, written as exact bytes.
func TestBadStream(t *testing.T) {
	cases := []struct {
		name, body string
		maxTokens  int
		class      string
		msg        []string // substrings of the message
	}{
		{"well-formed", okChunk + okFin + okUsage + okDone, 1, "", nil},
		{"garbage frames then [DONE]", okChunk + "data: {garbage\n\ndata: nope\n\n" + okFin + okUsage + okDone, 1,
			ErrBadStream, []string{`frame 2 is not a JSON chunk (2 such frames): "data: {garbage"`}},
		{"empty data frame", okChunk + "data:\n\n" + okFin + okUsage + okDone, 1,
			ErrBadStream, []string{`frame 2 is not a JSON chunk: "data:"`}},
		{"no content", okFin + okUsage + okDone, 5, ErrBadStream, []string{"no content chunk", "max_tokens was 5"}},
		{"no content, none asked", okFin + okUsage + okDone, 0, "", nil},
		{"content but no usage", okChunk + okFin + okDone, 1, ErrBadStream, []string{"no usage after 1 content chunks"}},
		{"zero usage only", okChunk + okFin + `data: {"choices":[],"usage":{"prompt_tokens":0,"completion_tokens":0}}` + "\n\n" + okDone, 1,
			ErrBadStream, []string{"no usage"}},
		{"finish then EOF", okChunk + okFin + okUsage, 1, ErrBadStream, []string{"without data: [DONE]"}},
		{"EOF before finish", okChunk + okChunk, 1, ErrStreamBroken, []string{"closed before [DONE] after 2 content chunks"}},
		{"garbage then EOF", okChunk + "data: {\n\n", 1, ErrStreamBroken, []string{"1 frames that are not JSON", `"data: {"`}},
		{"error frame first", okChunk + "data: junk\n\n" + `data: {"error":{"message":"overloaded","code":503}}` + "\n\n", 1,
			ErrHTTP5xx, []string{"overloaded"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := rawSSE(t, tc.body)
			r := newClient(t, srv.URL, APIChat, nil).Do(context.Background(), Request{Prompt: "x", MaxTokens: tc.maxTokens}, newClock())
			if r.ErrorClass != tc.class || r.HTTPStatus != 200 {
				t.Fatalf("class %q (%s) status %d, want %q", r.ErrorClass, r.ErrorMessage, r.HTTPStatus, tc.class)
			}
			for _, m := range tc.msg {
				if !strings.Contains(r.ErrorMessage, m) {
					t.Fatalf("message %q lacks %q", r.ErrorMessage, m)
				}
			}
		})
	}
}

// A 200 answer that is not SSE at all is a bad stream, quoted with its content type.
func TestBadStreamNotSSE(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"chatcmpl-1","choices":[{"message":{"content":"hi"}}]}`)
	}))
	defer srv.Close()
	r := newClient(t, srv.URL, APIChat, nil).Do(context.Background(), Request{Prompt: "x", MaxTokens: 1}, newClock())
	want := `answer is not an SSE stream (Content-Type "application/json"): "{\"id\":\"chatcmpl-1\",`
	if r.ErrorClass != ErrBadStream || !strings.HasPrefix(r.ErrorMessage, want) {
		t.Fatalf("%q %q", r.ErrorClass, r.ErrorMessage)
	}
}

// The quote of a bad frame is bounded however long and binary the frame, and so is the
// message.
func TestBadStreamQuoteBounded(t *testing.T) {
	for _, junk := range []string{strings.Repeat("é", 5000), strings.Repeat("\x00\xff", 5000), strings.Repeat("x", 1<<20)} {
		srv := rawSSE(t, okChunk+"data: {"+junk+"\n\n"+okFin+okUsage+okDone)
		r := newClient(t, srv.URL, APIChat, nil).Do(context.Background(), Request{Prompt: "x"}, newClock())
		if r.ErrorClass != ErrBadStream || len(r.ErrorMessage) > maxQuote+60 || !utf8.ValidString(r.ErrorMessage) ||
			!strings.HasPrefix(r.ErrorMessage, `frame 2 is not a JSON chunk: "data: {`) || !strings.HasSuffix(r.ErrorMessage, `"…`) {
			t.Fatalf("%q %q (%d bytes)", r.ErrorClass, r.ErrorMessage, len(r.ErrorMessage))
		}
	}
}

// A cut connection mid-stream stays stream_broken, even after garbage.
func TestBadStreamCutWins(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sseHeaders(w)
		io.WriteString(w, okChunk+"data: {junk\n\n"+okChunk)
		w.(http.Flusher).Flush()
		abort()
	}))
	defer srv.Close()
	r := newClient(t, srv.URL, APIChat, nil).Do(context.Background(), Request{Prompt: "x", MaxTokens: 2}, newClock())
	if r.ErrorClass != ErrStreamBroken || len(r.ChunkNS) != 2 {
		t.Fatalf("%q %q chunks %d", r.ErrorClass, r.ErrorMessage, len(r.ChunkNS))
	}
}

func TestQuoteBounded(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"data: {x", `"data: {x"`},
		{strings.Repeat("a", maxQuote), `"` + strings.Repeat("a", maxQuote) + `"`},
		{strings.Repeat("a", maxQuote+1), `"` + strings.Repeat("a", maxQuote) + `"…`},
		{strings.Repeat("é", 150), `"` + strings.Repeat("é", 100) + `"…`},
	} {
		if got := quoteBounded([]byte(tc.in)); got != tc.want {
			t.Errorf("quoteBounded(%.20q…) = %.40q…, want %.40q…", tc.in, got, tc.want)
		}
	}
	if q := quoteBounded([]byte(strings.Repeat("\x01", 1000))); len(q) > maxQuote+2+len("…") {
		t.Errorf("escaped quote %d bytes", len(q))
	}
}
