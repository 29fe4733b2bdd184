// Package client sends one request (chat or completions) to an OpenAI-compatible endpoint
// and times it: the send, every content chunk's arrival, the end, the server's usage and a
// fixed set of error classes. It never decides when to send (the scheduler does) and never
// writes results; it takes a request from the caller and returns a Response.
//
// A request streams unless its Options say stream false; it carries its own Options (the
// logged sampling, stop, tools, response_format, n) exactly as given, or, as Request.Body,
// a logged body verbatim with only its model replaced. A non-streamed answer is one JSON
// object (answer.go): it has usage and choices but no chunk times, so it is measured end to
// end only; n > 1 counts every choice.
//
// Request bodies are built from go-openai's request types; the stream is read from the raw
// HTTP body with a small SSE line splitter and a field walker on internal/jsoncur (frame.go),
// because go-openai's Recv costs several microseconds per chunk and our budget is under one
// (see BENCHMARKS.md).
//
// # Judgement
//
// Every response is judged, and only a complete, well-formed answer is a success
// (ErrorClass ""): a 2xx status, an SSE stream whose every data frame before data: [DONE] is
// a JSON object, no error frame, data: [DONE] at the end, at least one content chunk when
// max_tokens was sent (Request.MaxTokens, or the ExtraBody value that replaced it), a usage
// object with a non-zero count when include_usage was asked for (Config.OmitUsage false), and,
// when the stream ended with finish_reason "length", usage completion_tokens not below
// max_tokens. Lines after [DONE] are read (so the connection is reused) but not judged.
//
// A failure gets the first class that applies, in this order:
//
//   - connect, http_429, http_4xx, http_5xx: no answer, or a non-2xx status (the server's
//     message, and Retry-After on 429 and 503 in Response.RetryAfterNS);
//   - client: this machine ran out of descriptors, ports, buffers or memory, or the request
//     could not be built; the row says nothing about the endpoint;
//   - on a 2xx answer: an error frame's class (its code mapped like a status, else
//     stream_broken); then a cut: canceled (the caller's context), timeout (Config.Timeout,
//     or Config.StallTimeout with its own message), client, stream_broken (reset, or the body
//     ended before both a finish_reason and [DONE]); then bad_stream for what arrived: not SSE
//     at all, frames that are not JSON (the first quoted, bounded), no content, no usage, a
//     finish_reason without [DONE]; then short (finish_reason "length" under max_tokens).
//
// The order is the judge function's (judge.go); the classes are the Err* constants. A
// non-streamed answer is judged in the same order (judgeAnswer): a cut, an error object, then
// bad_stream for a body that is not a JSON completion, no choices, no content when max_tokens
// was sent or no usage, then short when the choices that hit "length" hold fewer completion
// tokens than max_tokens each.
//
// # Transport
//
// Plain-http requests go over HTTP/1.1 connections the client pools itself (plain.go): the
// sending goroutine writes the request and reads its answer, so no other goroutine must wake
// between a send's due time and its last byte leaving, nor between a chunk's bytes arriving
// and its timestamp. https (HTTP/2 where offered), proxied requests and bodies of unknown
// length go through net/http's transport.
//
// TLS certificates are verified against the system roots plus Config.CAFile; Config.Insecure
// skips verification only when asked for. Request.ID travels as X-Request-Id.
package client
