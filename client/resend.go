package client

import (
	"errors"
	"io"
	"syscall"
)

// resend.go holds the one rule by which a request is sent a second time without the caller
// asking (--retries is the caller's, and each of its attempts is a row of its own).
//
// A server may close a kept-alive connection whenever it sits between requests: at its idle
// timeout, after a count of requests, or right after a response without saying so (llama.cpp's
// llama-server closes every connection that carried a streamed answer right after the last
// chunk, with no "Connection: close": its chunked content provider reports the stream's end as
// a cancelled write, which cpp-httplib answers by closing; ggml-org/llama.cpp
// tools/server/server-http.cpp at aa6192d38defc9a5d9fb2987413f71b18f214270,
// process_handler_response; yhirose/cpp-httplib httplib.h at
// 6494edd8c03c55165825ae3078e2f55c595d8cb6, write_content_chunked). The pool peeks at every
// idle connection before it reuses one (peerClosed), which finds most such closes before a
// byte is written; a close that lands between that peek and the server reading the request
// fails the request on the reused connection.
//
// Fidelity: a run's request must never be sent twice to a server that may have processed it.
// It is sent again only when the first send provably never reached a live exchange:
//   - the connection was a reused one (it had carried a whole exchange and waited in the pool
//     between requests, where an HTTP/1.1 server may close it: RFC 9112 section 9.6), not one
//     dialed for this request;
//   - the server closed it (EOF, ECONNRESET or EPIPE), not a timeout or this process's own
//     cancellation;
//   - before any byte of the response arrived (a server that began answering has the request).
//
// It is then sent once more, on a connection dialed for it (so it cannot meet the same race
// again), and counted: the pool's Resent and the request's Response.Resent. net/http's
// transport (https, proxies) follows the same rule when a request is marked replayable
// (markReplayable); it decides for itself on HTTP/2, whose GOAWAY and REFUSED_STREAM say
// which streams the server never processed.

// noAnswerError is an exchange that failed before the response's first byte arrived.
type noAnswerError struct{ err error }

func (e noAnswerError) Error() string { return e.err.Error() }
func (e noAnswerError) Unwrap() error { return e.err }

// resendable reports whether err, the failure of an exchange on a reused connection, says the
// server closed that connection before answering a byte (the rule above); reused is whether
// the connection had carried an exchange before this one.
func resendable(err error, reused bool) bool {
	if !reused || !errors.As(err, new(noAnswerError)) {
		return false
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// idempotencyKey is the header net/http's transport reads as "this request may be sent again
// on the rule above"; with no value it is not sent on the wire (net/http's Transport docs).
const idempotencyKey = "X-Idempotency-Key"

// markReplayable lets net/http's transport send h's request again under the rule above (a
// reused connection that failed before the response's first byte), without a header on the
// wire; plainTransport applies the rule to every request itself.
func markReplayable(h map[string][]string) { h[idempotencyKey] = nil }
