package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// answer.go reads and judges a non-streamed answer (stream false): one JSON object with the
// choices and the usage. It has no chunk times, so its row is measured end to end only.

// answerChoice is what judging needs of one choice: whether it carries content (text, a
// message's content or reasoning, or tool calls) and its finish_reason. Content is kept raw so
// that a null or an odd type is no content rather than an unreadable answer.
type answerChoice struct {
	Text    json.RawMessage `json:"text"`
	Message struct {
		Content          json.RawMessage   `json:"content"`
		ReasoningContent json.RawMessage   `json:"reasoning_content"`
		Reasoning        json.RawMessage   `json:"reasoning"`
		ToolCalls        []json.RawMessage `json:"tool_calls"`
	} `json:"message"`
	FinishReason json.RawMessage `json:"finish_reason"`
}

// answerShape is the part of an answer read with encoding/json (a non-streamed answer comes
// once per request, so its cost does not matter as a stream's does); usage and errors are
// read by the frame walker, as in a stream.
type answerShape struct {
	Choices []answerChoice `json:"choices"`
}

// content reports whether the choice carries any output.
func (ch *answerChoice) content() bool {
	m := &ch.Message
	return nonEmptyJSONString(ch.Text) || nonEmptyJSONString(m.Content) ||
		nonEmptyJSONString(m.ReasoningContent) || nonEmptyJSONString(m.Reasoning) || len(m.ToolCalls) > 0
}

// nonEmptyJSONString reports whether raw is a JSON string other than "".
func nonEmptyJSONString(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 2 && raw[0] == '"'
}

// answer reads the body of a 2xx answer to a non-streamed request and judges it.
func answer(k *call, hresp *http.Response, r *Response) {
	b, err := io.ReadAll(io.LimitReader(hresp.Body, maxLine+1))
	r.DoneNS = k.clock()
	r.ErrorClass, r.ErrorMessage = judgeAnswer(k, b, err, hresp.Header, r)
}

// judgeAnswer classifies a non-streamed answer in the order judge uses for a stream: a cut
// (canceled, timeout, client, stream_broken), an error object (its code's class), then
// bad_stream for what arrived (too long, not a JSON object, no choices, no content although
// max_tokens was sent, no usage although it is wanted), then short (every choice that hit
// "length" holds max_tokens, so the usage must hold that many per such choice: n > 1 counts
// every choice). It fills r's usage.
func judgeAnswer(k *call, b []byte, readErr error, h http.Header, r *Response) (class, message string) {
	switch {
	case readErr != nil:
		return k.cut(ErrStreamBroken, readErr, fmt.Sprintf("reading the answer after %d bytes: %v", len(b), readErr), r)
	case len(b) > maxLine:
		return ErrBadStream, fmt.Sprintf("the answer is longer than %d MiB", maxLine>>20)
	}
	switch k.api {
	case kindResponses, kindMessages:
		return judgeTypedAnswer(k, b, h, r)
	case kindEmbeddings:
		return judgeEmbeddings(k, b, h, r)
	}
	f, ok := parseFrame(b)
	var shape answerShape
	if ok {
		ok = json.Unmarshal(b, &shape) == nil
	}
	if !ok {
		return ErrBadStream, notJSON(h, b)
	}
	if f.isError {
		var st streamState
		st.errorFrame(&f, b)
		return st.errClass, st.errMsg
	}
	gotUsage := f.hasUsage && (f.prompt > 0 || f.completion > 0)
	if gotUsage {
		r.PromptTokens, r.CompletionTokens, r.CachedTokens = int(f.prompt), int(f.completion), int(f.cached)
		r.ReasoningTokens = int(f.reasoning)
	}
	return judgeChoices(k, shape.Choices, gotUsage, r)
}

// judgeChoices is the last steps of judgeAnswer, over a well-formed answer's choices.
func judgeChoices(k *call, choices []answerChoice, gotUsage bool, r *Response) (class, message string) {
	content, atLength := false, 0
	for i := range choices {
		content = content || choices[i].content()
		if string(bytes.TrimSpace(choices[i].FinishReason)) == `"length"` {
			atLength++
		}
		var word string
		if json.Unmarshal(choices[i].FinishReason, &word) == nil && word != "" && r.FinishReason != "length" {
			r.FinishReason = reasonWord([]byte(word))
		}
	}
	switch {
	case len(choices) == 0:
		return ErrBadStream, "the answer has no choices"
	case k.maxTokens > 0 && !content:
		return ErrBadStream, fmt.Sprintf("no content in %d choices although max_tokens was %d", len(choices), k.maxTokens)
	case k.wantUsage && !gotUsage:
		return ErrBadStream, "the answer has no usage with a non-zero count"
	case atLength > 0 && k.maxTokens > 0 && r.CompletionTokens >= 0 && r.CompletionTokens < atLength*k.maxTokens:
		return ErrShort, fmt.Sprintf("finish_reason \"length\" in %d choices at %d completion tokens of max_tokens %d each: a server limit (context length, output cap) cut the answer",
			atLength, r.CompletionTokens, k.maxTokens)
	}
	return "", ""
}

// notJSON explains a 2xx answer to a non-streamed request that is not a JSON completion: its
// Content-Type and its first bytes (an SSE stream shows as "data: ...").
func notJSON(h http.Header, b []byte) string {
	msg := "the answer is not a JSON completion"
	if ct := h.Get("Content-Type"); ct != "" {
		msg += " (Content-Type " + strconv.Quote(truncateTo(ct, 100)) + ")"
	}
	return truncate(msg + ": " + quoteBounded(bytes.TrimSpace(b)))
}
