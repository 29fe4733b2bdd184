package client

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// judge gives the class of a 2xx answer once its body ended (readErr says how). Precedence,
// first match wins:
//
//  1. an error frame: the server said what went wrong, so its word is the class;
//  2. the stream was cut before its end ([DONE]; response.completed or message_stop on the
//     typed APIs): the caller canceled, a timeout or the stall timeout
//     fired, this machine hit a limit, or the connection failed (all by cut), or the body
//     ended before any finish_reason (stream_broken), except that an answer with no data
//     line at all but other text is not SSE (bad_stream), and a line over maxLine cannot be
//     read (bad_stream);
//  3. frames that are not JSON objects (bad_stream, the first one quoted);
//  4. missing pieces of a complete stream, in this order: a content chunk when max_tokens
//     was sent, usage when include_usage was sent, [DONE] after the finish_reason
//     (bad_stream);
//  5. finish_reason "length" with fewer completion tokens in usage than max_tokens (short).
//
// Anything else is a success.
func (st *streamState) judge(k *call, readErr error, h http.Header, r *Response) (class, message string) {
	switch {
	case st.errFrame:
		return st.errClass, st.errMsg
	case st.done || (readErr == io.EOF && st.finished):
		return st.complete(k, r)
	case readErr == errLineTooLong:
		return ErrBadStream, fmt.Sprintf("an SSE line is longer than %d MiB after %d content chunks", maxLine>>20, len(r.ChunkNS))
	case readErr != io.EOF:
		return k.cut(ErrStreamBroken, readErr,
			fmt.Sprintf("reading stream after %d content chunks: %v", len(r.ChunkNS), readErr), r)
	case st.dataLines == 0 && len(st.junk) > 0:
		return ErrBadStream, notSSE(h, st.junk)
	}
	msg := fmt.Sprintf("stream closed before %s after %d content chunks", k.api.endName(), len(r.ChunkNS))
	if st.bad > 0 {
		msg += fmt.Sprintf(" and %d frames that are not JSON (the first, frame %d: %s)", st.bad, st.badAt, st.badQuote)
	}
	return ErrStreamBroken, truncate(msg)
}

// complete judges a stream that ended with [DONE], or with a finish_reason and the end of the
// body: steps 3 to 5 of judge.
func (st *streamState) complete(k *call, r *Response) (class, message string) {
	switch {
	case st.bad > 0:
		msg := fmt.Sprintf("frame %d is not a JSON chunk", st.badAt)
		if st.bad > 1 {
			msg += fmt.Sprintf(" (%d such frames)", st.bad)
		}
		return ErrBadStream, truncate(msg + ": " + st.badQuote)
	case k.maxTokens > 0 && len(r.ChunkNS) == 0:
		return ErrBadStream, fmt.Sprintf("no content chunk although max_tokens was %d", k.maxTokens)
	case k.wantUsage && !st.usage:
		return ErrBadStream, fmt.Sprintf("no usage after %d content chunks although %s", len(r.ChunkNS), usageAsked(k.api))
	case !st.done:
		return ErrBadStream, fmt.Sprintf("stream ended after its finish_reason without %s (%d content chunks)", endLine(k.api), len(r.ChunkNS))
	case st.length && k.maxTokens > 0 && r.CompletionTokens >= 0 && r.CompletionTokens < k.maxTokens:
		return ErrShort, fmt.Sprintf("%s at %d completion tokens of max_tokens %d: a server limit (context length, output cap) cut the answer",
			lengthWord(k.api), r.CompletionTokens, k.maxTokens)
	}
	return "", ""
}

// usageAsked says why usage was due, for a message.
func usageAsked(api apiKind) string {
	if api == kindChat || api == kindCompletions {
		return "stream_options.include_usage asked for it"
	}
	return fmt.Sprintf("the %s API reports it", api)
}

// endLine is the line that ends a complete stream, for a message.
func endLine(api apiKind) string {
	if api.typed() {
		return api.endName()
	}
	return "data: [DONE]"
}

// lengthWord is how the API says the answer ran to its output cap, for a message.
func lengthWord(api apiKind) string {
	switch api {
	case kindResponses:
		return "status incomplete (max_output_tokens)"
	case kindMessages:
		return "stop_reason max_tokens"
	}
	return "finish_reason \"length\""
}

// notSSE explains a 2xx answer that holds no data line: its Content-Type and its first bytes.
func notSSE(h http.Header, junk []byte) string {
	msg := "answer is not an SSE stream"
	if ct := h.Get("Content-Type"); ct != "" {
		msg += " (Content-Type " + strconv.Quote(truncateTo(ct, 100)) + ")"
	}
	return truncate(msg + ": " + quoteBounded(bytes.TrimSuffix(junk, []byte{'\n'})))
}
