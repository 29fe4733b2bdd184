// Package client sends one request to an endpoint and times it: the send, every content
// chunk's arrival, the end, the server's usage and a fixed set of error classes. It never
// decides when to send (the scheduler does) and never writes results; it takes a request
// from the caller and returns a Response.
//
// Each request goes to its own API (Request.API, else Config.API), one of five: chat
// (/chat/completions), completions (/completions), OpenAI's Responses API (/responses),
// Anthropic's Messages API (/messages, with anthropic-version and the key as x-api-key too)
// and embeddings (/embeddings). The API chooses the path, the body's encoder (api_*.go) and
// how the answer is read and judged; an Encoded body keeps its API.
//
// A request streams unless its Options say stream false (embeddings never do); it carries
// its own Options (the logged sampling, stop, tools, structured output, n, and the body's
// other members as logged, Options.Fields, spliced raw) exactly as given, or, as
// Request.Body, a logged body verbatim with only its model replaced. An option the API's
// body has no member for fails the request on this machine (client), naming it. A
// non-streamed answer is one JSON object (answer.go, answer_typed.go, answer_embeddings.go):
// it has usage and output but no chunk times, so it is measured end to end only; n > 1 counts
// every choice; an embeddings answer must hold one embedding per input, in order, and has no
// output tokens.
//
// Chat and completions bodies are built from go-openai's request types, the others by their
// own encoders; streams are read from the raw HTTP body with a small SSE line splitter and
// field walkers on internal/jsoncur (frame.go for chat's chunks, typed.go for the Responses
// and Messages APIs' typed events), because go-openai's Recv costs several microseconds per
// chunk and our budget is under one (see BENCHMARKS.md).
//
// # Judgement
//
// Every response is judged, and only a complete, well-formed answer is a success
// (ErrorClass ""): a 2xx status, an SSE stream whose every data frame before its end is a
// JSON object, no error frame, the end itself (data: [DONE] on chat and completions;
// response.completed or response.incomplete on the Responses API, message_stop on the
// Messages API, where a [DONE] line is accepted and ignored), at least one content chunk when
// max_tokens was sent (Request.MaxTokens, or the ExtraBody value that replaced it), a usage
// object with a non-zero count when include_usage was asked for (the typed APIs always
// report usage: it is wanted there unless Config.OmitUsage), and, when the stream ended at
// the output cap (finish_reason "length", status incomplete at max_output_tokens,
// stop_reason max_tokens), completion tokens not below max_tokens. Lines after the end are
// read (so the connection is reused) but not judged. A typed stream's content chunks are its
// output deltas (text, reasoning, refusal, a call's arguments; text_delta, input_json_delta,
// thinking_delta); its error events are classed by their code or type (Anthropic's
// overloaded_error, its HTTP 529, as http_5xx); the Messages API's prompt is input_tokens
// plus its cache reads and writes (stream_typed.go says why).
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
//     ended before both a finish_reason and its end); then bad_stream for what arrived: not
//     SSE at all, frames that are not JSON (the first quoted, bounded), no content, no usage,
//     a finish_reason without its end; then short (the output cap under max_tokens).
//
// The order is the judge function's (judge.go); the classes are the Err* constants. A
// non-streamed answer is judged in the same order (judgeAnswer): a cut, an error object, then
// bad_stream for a body that is not a JSON answer, no choices (a response not completed, an
// embeddings list with a wrong count or a malformed embedding), no content when max_tokens
// was sent or no usage, then short when the choices that hit the cap hold fewer completion
// tokens than max_tokens each. Response.FinishReason says how the answer ended in chat's
// words, whatever the API.
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
