package client

import (
	"fmt"
	"net/http"
)

// answer_typed.go judges a non-streamed answer of the Responses API (a response object:
// status, incomplete_details, error, output items, usage;
// https://platform.openai.com/docs/api-reference/responses/object) or the Messages API (a
// message: content blocks, stop_reason, usage; https://docs.anthropic.com/en/api/messages),
// in the order judgeAnswer uses for chat's: an error, then bad_stream for what arrived (not
// JSON, a response still in progress or cancelled, no output although max_tokens was sent, no
// usage), then short.

// judgeTypedAnswer judges a whole Responses or Messages answer and fills r's usage and
// finish reason.
func judgeTypedAnswer(k *call, b []byte, h http.Header, r *Response) (class, message string) {
	e, ok := parseAnswer(b, k.api)
	if !ok {
		return ErrBadStream, notJSON(h, b)
	}
	if e.isError() || e.status == "failed" {
		msg := truncate(decodeRaw(e.errMessage()))
		if msg == "" {
			msg = truncate("error answer: " + quoteBounded(b))
		}
		return e.class(), msg
	}
	st := streamState{api: k.api, tu: noTokens}
	st.addTokens(e.usage, r)
	finish := e.stop
	if k.api == kindResponses {
		switch e.status {
		case "", "completed", "incomplete":
		default:
			return ErrBadStream, fmt.Sprintf("the response's status is %q, not completed", e.status)
		}
		finish = responseFinish(&e, false)
	}
	r.FinishReason = finish
	switch {
	case k.maxTokens > 0 && !e.output:
		return ErrBadStream, fmt.Sprintf("no output in the answer although max_tokens was %d", k.maxTokens)
	case k.wantUsage && !st.usage:
		return ErrBadStream, "the answer has no usage with a non-zero count"
	case finish == "length" && k.maxTokens > 0 && r.CompletionTokens >= 0 && r.CompletionTokens < k.maxTokens:
		return ErrShort, fmt.Sprintf("%s at %d completion tokens of max_tokens %d: a server limit (context length, output cap) cut the answer",
			lengthWord(k.api), r.CompletionTokens, k.maxTokens)
	}
	return "", ""
}
