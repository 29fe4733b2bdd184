package client

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error classes, the only values Response.ErrorClass takes besides "" (success).
const (
	// ErrConnect: no response at all (dial, connection refused or reset before headers).
	ErrConnect = "connect"
	// ErrTLS: the TLS handshake failed: a certificate that does not verify (unknown
	// authority, other names, expired) or a handshake the two sides could not complete. The
	// fix is in this side's settings or the server's certificate, not its load (TLSFailure).
	ErrTLS = "tls"
	// ErrHTTP429: the server answered 429 (overloaded, rate limited), or a stream error with
	// code 429.
	ErrHTTP429 = "http_429"
	// ErrHTTP4xx: any other non-2xx status below 500 (bad request, auth, context too long),
	// or a stream error with such a code.
	ErrHTTP4xx = "http_4xx"
	// ErrHTTP5xx: status 500 or above, or a stream error with such a code.
	ErrHTTP5xx = "http_5xx"
	// ErrStreamBroken: the stream was cut: the body ended before both [DONE] and any
	// finish_reason, or the connection was closed or reset mid-stream, or a stream error
	// frame carried no HTTP-like code.
	ErrStreamBroken = "stream_broken"
	// ErrBadStream: a 2xx answer that is not a well-formed OpenAI stream: a data frame that is
	// not a JSON object, an answer that is not SSE at all, no content chunk although output was
	// asked for (max_tokens > 0), no usage although it was asked for (include_usage), a
	// finish_reason followed by the end of the body without [DONE], or an SSE line over 16 MiB.
	// The message quotes the first offending bytes.
	ErrBadStream = "bad_stream"
	// ErrShort: a well-formed stream that ended with finish_reason "length" while its usage
	// reports fewer completion tokens than max_tokens: a server limit (its context length, a
	// max_tokens cap) cut the answer, so its timing is not that of the length asked for.
	ErrShort = "short"
	// ErrTimeout: Config.Timeout elapsed, or Config.StallTimeout passed without a byte.
	ErrTimeout = "timeout"
	// ErrCanceled: the caller's context ended (the run stopped).
	ErrCanceled = "canceled"
	// ErrClient: this machine's limit, not the endpoint's: out of file descriptors, local
	// ports, socket buffers or memory, or a request that could not be built. Such rows say
	// nothing about the endpoint and should not count against it.
	ErrClient = "client"
)

// maxMessage bounds ErrorMessage: enough for a server's explanation, small in a result row.
const maxMessage = 500

// Response is the timing and accounting of one request. Timestamps are values of the clock
// passed to Do (a monotonic offset, nanoseconds); zero when the event did not happen.
type Response struct {
	// SentNS is taken just before the request is handed to the HTTP client.
	SentNS int64
	// WrittenNS is when the request's last byte was handed to the kernel, the write call that
	// carries it beginning (after any connect and TLS handshake; httptrace's WroteRequest);
	// 0 when it never was (a failed connect or write).
	WrittenNS int64
	// FirstTokenNS and LastTokenNS are the arrivals of the first and last content chunks.
	FirstTokenNS int64
	LastTokenNS  int64
	// DoneNS is when the response ended: [DONE] read, stream closed, error or timeout.
	DoneNS int64
	// ChunkNS is the arrival of every content chunk, in order. Chunks read in one socket
	// read share a timestamp: they arrived together.
	ChunkNS []int64
	// FirstReasoningNS and FirstAnswerNS are the arrivals of the first chunk of thinking (a
	// reasoning delta of any dialect, or content inside a think block: think.go) and of the
	// first chunk of answer (text, a refusal, a tool call's arguments); FirstTokenNS is the
	// earlier of the two. ReasoningChunks and AnswerChunks count the chunks of each kind (a
	// chunk carrying both counts in both).
	FirstReasoningNS int64
	FirstAnswerNS    int64
	ReasoningChunks  int
	AnswerChunks     int
	// Usage as the server reported it (the last non-zero usage object); -1 when not reported.
	// ReasoningTokens is the part of CompletionTokens the usage says was thinking (chat's
	// completion_tokens_details.reasoning_tokens, the Responses API's
	// output_tokens_details.reasoning_tokens); -1 when the usage does not say.
	PromptTokens     int
	CompletionTokens int
	CachedTokens     int
	ReasoningTokens  int
	// HTTPStatus is the response status, 0 when none arrived.
	HTTPStatus int
	// RetryAfterNS is the server's Retry-After on a 429 or 503 answer (delay-seconds, or an
	// HTTP-date taken relative to this machine's clock), in nanoseconds; 0 when absent,
	// unparseable or in the past.
	RetryAfterNS int64
	// ErrorClass is "" on success, else one of the Err* constants.
	ErrorClass string
	// ErrorMessage is the server's message (or the transport error), at most ~500 bytes.
	ErrorMessage string
	// Resent is whether the request was sent a second time, on a new connection, because the
	// server had closed the reused one before answering a byte (resend.go's rule: the first
	// send provably reached no live exchange).
	Resent bool
	// API is the API the request went to (its own Request.API, or Config.API): one of the
	// API constants; "" only when the request named none that exists.
	API string
	// FinishReason is why the answer ended, in chat's words whatever the API: "stop" (chat's
	// stop, the Messages API's end_turn and stop_sequence, a completed response), "length"
	// (the output cap: chat's length, max_tokens, a response incomplete at
	// max_output_tokens), "tool_calls" (tool_use, a response with a function call), or the
	// server's own word for anything else (content_filter, refusal...). With n > 1 it is
	// "length" when any choice hit the cap, else the last choice's. "" when none came (an
	// error, a cut, an embeddings answer).
	FinishReason string
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

// maxQuote bounds the server bytes quoted in a bad_stream message.
const maxQuote = 200

// quoteBounded quotes (strconv.Quote) a prefix of b whose quoted form holds at most about
// maxQuote bytes, cut on a rune boundary; "…" after the closing quote says bytes were left
// out. Escapes can make the quoted form up to four times the raw length, so the prefix
// shrinks until the quoted form fits.
func quoteBounded(b []byte) string {
	n := min(len(b), maxQuote)
	for {
		n = runeCut(b, n)
		q := strconv.Quote(string(b[:n]))
		if len(q) <= maxQuote+2 || n == 0 {
			if n < len(b) {
				q += "…"
			}
			return q
		}
		n = max(n-(len(q)-maxQuote-2)/4-1, 0)
	}
}

// runeCut moves n back to the start of a rune in b (or to 0), so b[:n] splits no character.
func runeCut[T string | []byte](b T, n int) int {
	if n >= len(b) {
		return len(b)
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return n
}

// truncate cuts s to at most maxMessage bytes on a rune boundary and makes it valid UTF-8.
func truncate(s string) string { return truncateTo(s, maxMessage) }

// truncateTo trims s, makes it valid UTF-8 and cuts it to at most n bytes on a rune boundary,
// marking a cut with "…".
func truncateTo(s string, n int) string {
	s = strings.ToValidUTF8(strings.TrimSpace(s), "\uFFFD")
	if len(s) > n {
		s = s[:runeCut(s, max(n, 0))] + "…"
	}
	return s
}

// withNote is prefix, s and note, with s cut so that the whole stays within maxMessage and
// the note (what the failure means) is never the part cut off.
func withNote(prefix, s, note string) string {
	return prefix + truncateTo(s, maxMessage-len(prefix)-len(note)-1) + " " + note
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
