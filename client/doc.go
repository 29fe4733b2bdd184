// Package client sends one streaming request (chat or completions) to an OpenAI-compatible
// endpoint and times it: the send, every content chunk's arrival, the end, the server's usage
// and a fixed set of error classes. It never decides when to send (the scheduler does) and
// never writes results; it takes a request from the caller and returns a Response.
//
// Request bodies are built from go-openai's request types; the stream is read from the raw
// HTTP body with a small SSE line splitter and a field walker on internal/jsoncur (frame.go),
// because go-openai's Recv costs several microseconds per chunk and our budget is under one
// (see BENCHMARKS.md).
package client
