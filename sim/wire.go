package sim

import (
	"strconv"
	"unicode/utf8"
)

// fillerToken is the text of every generated token: obviously synthetic, never model output.
const fillerToken = " tok"

// usage is the token accounting of one answer; completion counts the tokens of every choice.
type usage struct {
	prompt, completion, cached int
}

// answer writes the JSON of one response by appending bytes, without reflection, because in
// zero-cost mode this is the server's whole job.
type answer struct {
	chat bool
	// streamHead and fullHead are `{"id":...,"object":...,"created":...,"model":...,` for
	// stream chunks and for the non-streaming body.
	streamHead, fullHead []byte
}

func newAnswer(chat bool, id uint64, created int64, model string) *answer {
	a := &answer{chat: chat}
	prefix, streamObj, fullObj := "cmpl-sim-", "text_completion", "text_completion"
	if chat {
		prefix, streamObj, fullObj = "chatcmpl-sim-", "chat.completion.chunk", "chat.completion"
	}
	head := func(obj string) []byte {
		b := make([]byte, 0, 96+len(model))
		b = append(b, `{"id":"`...)
		b = append(b, prefix...)
		b = strconv.AppendUint(b, id, 10)
		b = append(b, `","object":"`...)
		b = append(b, obj...)
		b = append(b, `","created":`...)
		b = strconv.AppendInt(b, created, 10)
		b = append(b, `,"model":`...)
		b = appendJSONString(b, model)
		return append(b, ',')
	}
	a.streamHead, a.fullHead = head(streamObj), head(fullObj)
	return a
}

func appendFiller(b []byte, tokens int) []byte {
	for range tokens {
		b = append(b, fillerToken...)
	}
	return b
}

// appendChunk appends one SSE event carrying tokens generated tokens of choice index. The first
// chunk of each choice of a chat answer carries the assistant role (with the first token, as
// vLLM does, so a client's first chunk is its first token); the last carries finish_reason
// "length".
func (a *answer) appendChunk(b []byte, index, tokens int, first, last bool) []byte {
	b = append(b, "data: "...)
	b = append(b, a.streamHead...)
	b = appendChoiceIndex(b, index)
	if a.chat {
		b = append(b, `,"delta":{`...)
		if first {
			b = append(b, `"role":"assistant",`...)
		}
		b = append(b, `"content":"`...)
		b = appendFiller(b, tokens)
		b = append(b, `"},"logprobs":null,"finish_reason":`...)
	} else {
		b = append(b, `,"text":"`...)
		b = appendFiller(b, tokens)
		b = append(b, `","logprobs":null,"finish_reason":`...)
	}
	if last {
		b = append(b, `"length"}]}`...)
	} else {
		b = append(b, `null}]}`...)
	}
	return append(b, "\n\n"...)
}

// appendChoiceIndex opens a one-choice list: `"choices":[{"index":i`.
func appendChoiceIndex(b []byte, index int) []byte {
	if index == 0 { // nearly every answer: no number to format
		return append(b, `"choices":[{"index":0`...)
	}
	b = append(b, `"choices":[{"index":`...)
	return strconv.AppendInt(b, int64(index), 10)
}

// appendUsageChunk appends the include_usage event (empty choices) and the [DONE] marker.
func (a *answer) appendUsageChunk(b []byte, u usage) []byte {
	b = append(b, "data: "...)
	b = append(b, a.streamHead...)
	b = append(b, `"choices":[],`...)
	b = appendUsage(b, u)
	return append(b, "}\n\n"...)
}

func appendDone(b []byte) []byte { return append(b, "data: [DONE]\n\n"...) }

func appendUsage(b []byte, u usage) []byte {
	b = append(b, `"usage":{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(u.prompt), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(u.completion), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(u.prompt+u.completion), 10)
	b = append(b, `,"prompt_tokens_details":{"cached_tokens":`...)
	b = strconv.AppendInt(b, int64(u.cached), 10)
	return append(b, "}}"...)
}

// appendFull appends a non-streaming response body of choices choices of tokens tokens each;
// u.completion counts them all.
func (a *answer) appendFull(b []byte, choices, tokens int, u usage) []byte {
	b = append(b, a.fullHead...)
	b = append(b, `"choices":[`...)
	for i := range choices {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"index":`...)
		b = strconv.AppendInt(b, int64(i), 10)
		if a.chat {
			b = append(b, `,"message":{"role":"assistant","content":"`...)
			b = appendFiller(b, tokens)
			b = append(b, `"},"logprobs":null,"finish_reason":"length"}`...)
		} else {
			b = append(b, `,"text":"`...)
			b = appendFiller(b, tokens)
			b = append(b, `","logprobs":null,"finish_reason":"length"}`...)
		}
	}
	b = append(b, "],"...)
	b = appendUsage(b, u)
	return append(b, '}')
}

// appendJSONString appends s as a JSON string, replacing invalid UTF-8 with U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
