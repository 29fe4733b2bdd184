package sim

import (
	"net/http"
	"strconv"
)

// framing is how one API writes an answer on the wire. A stream is written in order: appendStart
// once the headers are out, appendChunk for each chunk of tokens (the chunker's), appendEnd
// after the last; appendFull is a whole non-streamed body. Chat and completions are framed by
// answer itself; the Responses API by responsesAnswer, Anthropic's Messages API by
// messagesAnswer. A framing may keep state between calls (the Responses API numbers its
// events), so one answer's calls never interleave with another's.
type framing interface {
	// appendStart appends what a stream sends before its first token.
	appendStart(b []byte) []byte
	// appendChunk appends what carries tokens [from, from+tokens) of choice index; first and
	// last say whether they are the choice's first and last.
	appendChunk(b []byte, index, from, tokens int, first, last bool) []byte
	// appendEnd appends what follows the last chunk, with the whole answer's usage.
	appendEnd(b []byte, u usage) []byte
	// appendFull appends a non-streamed body of choices choices of tokens tokens each.
	appendFull(b []byte, choices, tokens int, u usage) []byte
}

// errorShape is how an API words an error body.
type errorShape uint8

const (
	// openAIErrors is {"error":{"message","type","param","code"}}, OpenAI's and vLLM's shape.
	openAIErrors errorShape = iota
	// anthropicErrors is {"type":"error","error":{"type","message"}}, Anthropic's shape
	// (anthropic-sdk-python@009b035305e0724ce108ebd796935f91711fc6e1:
	// src/anthropic/types/shared/error_response.py, error_object.py).
	anthropicErrors
)

// write writes an error body of this shape. typ is OpenAI's error type; the Anthropic shape
// takes its type from the status instead, as Anthropic's API does.
func (e errorShape) write(w http.ResponseWriter, status int, typ, msg string) {
	if e == openAIErrors {
		writeError(w, status, typ, msg)
		return
	}
	b := make([]byte, 0, 96+len(msg))
	b = append(b, `{"type":"error","error":{"type":`...)
	b = appendJSONString(b, anthropicErrorType(status))
	b = append(b, `,"message":`...)
	b = appendJSONString(b, msg)
	b = append(b, "}}\n"...)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

// anthropicErrorType is the error type Anthropic's API gives a status (its errors page: 400
// invalid_request_error, 429 rate_limit_error, 500 api_error, 529 overloaded_error, which the
// simulator's 503 stands for).
func anthropicErrorType(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "invalid_request_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case http.StatusServiceUnavailable:
		return "overloaded_error"
	}
	return "api_error"
}
