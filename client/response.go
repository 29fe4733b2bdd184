package client

import (
	"strings"
	"unicode/utf8"
)

// Error classes, the only values Response.ErrorClass takes besides "" (success).
const (
	// ErrConnect: no response at all (dial, TLS, connection refused or reset before headers).
	ErrConnect = "connect"
	// ErrHTTP429: the server answered 429 (overloaded, rate limited), or a stream error with
	// code 429.
	ErrHTTP429 = "http_429"
	// ErrHTTP4xx: any other non-2xx status below 500 (bad request, auth, context too long),
	// or a stream error with such a code.
	ErrHTTP4xx = "http_4xx"
	// ErrHTTP5xx: status 500 or above, or a stream error with such a code.
	ErrHTTP5xx = "http_5xx"
	// ErrStreamBroken: the stream ended before [DONE] or a finish_reason (connection closed,
	// reset, a stream error without an HTTP-like code, or a 200 answer that was not SSE).
	ErrStreamBroken = "stream_broken"
	// ErrTimeout: Config.Timeout elapsed.
	ErrTimeout = "timeout"
	// ErrCanceled: the caller's context ended (the run stopped).
	ErrCanceled = "canceled"
)

// maxMessage bounds ErrorMessage: enough for a server's explanation, small in a result row.
const maxMessage = 500

// Response is the timing and accounting of one request. Timestamps are values of the clock
// passed to Do (a monotonic offset, nanoseconds); zero when the event did not happen.
type Response struct {
	// SentNS is taken just before the request is handed to the HTTP client.
	SentNS int64
	// FirstTokenNS and LastTokenNS are the arrivals of the first and last content chunks.
	FirstTokenNS int64
	LastTokenNS  int64
	// DoneNS is when the response ended: [DONE] read, stream closed, error or timeout.
	DoneNS int64
	// ChunkNS is the arrival of every content chunk, in order. Chunks read in one socket
	// read share a timestamp: they arrived together.
	ChunkNS []int64
	// Usage as the server reported it (the last non-zero usage object); -1 when not reported.
	PromptTokens     int
	CompletionTokens int
	CachedTokens     int
	// HTTPStatus is the response status, 0 when none arrived.
	HTTPStatus int
	// ErrorClass is "" on success, else one of the Err* constants.
	ErrorClass string
	// ErrorMessage is the server's message (or the transport error), at most ~500 bytes.
	ErrorMessage string
}

// OK reports whether the request succeeded.
func (r *Response) OK() bool { return r.ErrorClass == "" }

// statusClass maps a non-2xx status (or a stream error code) to an error class.
func statusClass(code int) string {
	switch {
	case code == 429:
		return ErrHTTP429
	case code >= 500:
		return ErrHTTP5xx
	default:
		return ErrHTTP4xx
	}
}

// truncate cuts s to at most maxMessage bytes on a rune boundary and makes it valid UTF-8.
func truncate(s string) string {
	s = strings.ToValidUTF8(strings.TrimSpace(s), "\uFFFD")
	if len(s) > maxMessage {
		cut := maxMessage
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// errorBodyMessage extracts the message of an error body: OpenAI's {"error":{"message"}},
// {"error":"..."}, vLLM's {"object":"error","message"}, else the text itself.
func errorBodyMessage(body []byte) string {
	f, ok := parseFrame(body)
	if ok && f.isError && len(f.errMsg) > 0 {
		if m := decodeRaw(f.errMsg); m != "" {
			return truncate(m)
		}
	}
	return truncate(string(body))
}
