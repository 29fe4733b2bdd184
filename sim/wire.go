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
	// reasoning is the thinking part of completion (every choice's).
	reasoning int
}

// answer writes the JSON of one response by appending bytes, without reflection, because in
// zero-cost mode this is the server's whole job. It frames chat and completions answers
// itself; the other APIs wrap it in their own framing (fr).
type answer struct {
	chat bool
	id   uint64
	// created and model are the answer's timestamp (Unix seconds) and the model it names.
	created int64
	model   string
	// streamHead and fullHead are `{"id":...,"object":...,"created":...,"model":...,` for
	// stream chunks and for the non-streaming body (chat and completions only).
	streamHead, fullHead []byte
	// out is what each choice says; the filler until the server sets it.
	out output
	// includeUsage is stream_options.include_usage: a chat or completions stream ends with a
	// usage chunk.
	includeUsage bool
	// input is the prompt's tokens and the cached part of them as soon as they are known (at
	// the first token), for the APIs whose first event reports them (Anthropic's
	// message_start).
	input usage
	// fr is how this answer is written on the wire: the answer itself for chat and completions.
	fr framing
	// errs is how this answer's API words an error.
	errs errorShape
}

// newAnswer is a chat (or completions) answer, framed as such.
func newAnswer(chat bool, id uint64, created int64, model string) *answer {
	a := &answer{chat: chat, id: id, created: created, model: model, out: output{finish: "length"}}
	a.fr = a
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

// appendChunk appends one SSE event carrying tokens [from, from+tokens) of choice index. The
// first chunk of each choice of a chat answer carries the assistant role (with the first token,
// as vLLM does, so a client's first chunk is its first token); the last carries the
// finish_reason ("length" for the filler).
func (a *answer) appendChunk(b []byte, index, from, tokens int, first, last bool) []byte {
	b = append(b, "data: "...)
	b = append(b, a.streamHead...)
	b = appendChoiceIndex(b, index)
	switch {
	case a.chat && from < a.out.thinking:
		b = a.appendThinkingDelta(b, from, tokens, first)
	case a.chat && a.out.content != nil && a.out.content.Tool != "":
		b = a.appendCallDelta(b, index, from, tokens, first)
	case a.chat:
		b = append(b, `,"delta":{`...)
		if first {
			b = append(b, `"role":"assistant",`...)
		}
		b = append(b, `"content":"`...)
		b = a.out.appendTokens(b, from, tokens)
		b = append(b, `"}`...)
	default:
		b = append(b, `,"text":"`...)
		b = a.out.appendTokens(b, from, tokens)
		b = append(b, '"')
	}
	b = append(b, `,"logprobs":null,"finish_reason":`...)
	if last {
		b = appendJSONString(b, a.out.finish)
	} else {
		b = append(b, `null`...)
	}
	b = append(b, "}]}"...)
	return append(b, "\n\n"...)
}

// appendCallDelta appends a tool call's delta as OpenAI streams one: the first chunk carries
// the role, the call's index, id, type and function name with the first tokens of its
// arguments; later ones only the call's index and more of the arguments.
func (a *answer) appendCallDelta(b []byte, index, from, tokens int, first bool) []byte {
	if first {
		b = append(b, `,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":`...)
		b = a.appendCallID(b, index)
		b = append(b, `,"type":"function","function":{"name":`...)
		b = appendJSONString(b, a.out.content.Tool)
		b = append(b, `,"arguments":"`...)
	} else {
		b = append(b, `,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"`...)
	}
	b = a.out.appendTokens(b, from, tokens)
	return append(b, `"}}]}`...)
}

// appendCallID appends a tool call's id, unique per answer and choice.
func (a *answer) appendCallID(b []byte, index int) []byte {
	b = append(b, `"call_sim_`...)
	b = strconv.AppendUint(b, a.id, 10)
	b = append(b, '_')
	b = strconv.AppendInt(b, int64(index), 10)
	return append(b, '"')
}

// appendChoiceIndex opens a one-choice list: `"choices":[{"index":i`.
func appendChoiceIndex(b []byte, index int) []byte {
	if index == 0 { // nearly every answer: no number to format
		return append(b, `"choices":[{"index":0`...)
	}
	b = append(b, `"choices":[{"index":`...)
	return strconv.AppendInt(b, int64(index), 10)
}

// appendStart implements framing: a chat or completions stream starts with its first chunk.
func (a *answer) appendStart(b []byte) []byte { return b }

// appendEnd implements framing: what follows the last chunk, the usage event when asked for,
// and [DONE].
func (a *answer) appendEnd(b []byte, u usage) []byte {
	if a.includeUsage {
		b = a.appendUsageChunk(b, u)
	}
	return appendDone(b)
}

// appendUsageChunk appends the include_usage event (empty choices).
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
	if u.reasoning > 0 {
		b = append(b, `},"completion_tokens_details":{"reasoning_tokens":`...)
		b = strconv.AppendInt(b, int64(u.reasoning), 10)
	}
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
		switch {
		case a.chat && a.out.content != nil && a.out.content.Tool != "":
			b = append(b, `,"message":{"role":"assistant","content":null,"tool_calls":[{"id":`...)
			b = a.appendCallID(b, i)
			b = append(b, `,"type":"function","function":{"name":`...)
			b = appendJSONString(b, a.out.content.Tool)
			b = append(b, `,"arguments":"`...)
			b = a.out.appendTokens(b, 0, tokens)
			b = append(b, `"}}]}`...)
		case a.chat:
			b = append(b, `,"message":{"role":"assistant",`...)
			b = a.appendThinkingMember(b)
			b = append(b, `"content":"`...)
			b = a.out.appendTokens(b, a.out.thinking, tokens-a.out.thinking)
			b = append(b, `"}`...)
		default:
			b = append(b, `,"text":"`...)
			b = a.out.appendTokens(b, 0, tokens)
			b = append(b, '"')
		}
		b = append(b, `,"logprobs":null,"finish_reason":`...)
		b = appendJSONString(b, a.out.finish)
		b = append(b, '}')
	}
	b = append(b, "],"...)
	b = appendUsage(b, u)
	return append(b, '}')
}

// appendJSONString appends s as a JSON string, replacing invalid UTF-8 with U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendEscaped(b, s)
	return append(b, '"')
}

// appendEscaped appends s escaped for a JSON string, without the quotes; pieces of a text cut
// on character boundaries escape to pieces of the escaped whole.
func appendEscaped(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
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
	return b
}
