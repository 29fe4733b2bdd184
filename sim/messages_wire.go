package sim

import (
	"encoding/json"
	"strconv"
)

// messagesAnswer frames an answer as Anthropic's Messages API does
// (anthropic-sdk-python@009b035305e0724ce108ebd796935f91711fc6e1: src/anthropic/types/message.py,
// usage.py, message_delta_usage.py, raw_*_event.py, text_delta.py, input_json_delta.py,
// tool_use_block.py; the stream's order is the one Anthropic's streaming guide shows,
// https://docs.anthropic.com/en/docs/build-with-claude/streaming). One content block: the
// text, or the tool_use a forced tool choice makes. stop_reason is max_tokens for an answer
// that ran to max_tokens (every filler answer, as chat's ends with finish_reason "length"),
// tool_use for a whole call, end_turn otherwise; stop_sequence is null, as stop sequences are
// never matched.
//
// Usage follows Anthropic's split (usage.py: "Total input tokens in a request is the summation
// of input_tokens, cache_creation_input_tokens, and cache_read_input_tokens"): input_tokens
// counts only the prompt tokens computed for this request, cache_read_input_tokens those
// served from the prefix cache, cache_creation_input_tokens is 0 (the simulator's cache is
// automatic, as vLLM's is, with no cache writes to bill). vLLM's endpoint (serving.py above)
// and llama.cpp's (ggml-org/llama.cpp@00efb3e184262872916bf136b3df63c1822a19bd:
// tools/server/server-task.cpp to_json_anthropic) give every prompt token as input_tokens and
// no cache fields; a client summing the three as Anthropic documents reads the same prompt
// from all of them. Chat and the Responses API count the cached tokens inside their prompt
// tokens instead.
//
// A stream is SSE with an `event:` line naming each event's type. message_start (the message
// with no content, stop_reason null, usage with the input and output_tokens 1),
// content_block_start and ping come with the first token, when the prefix cache's share of the
// prompt is known (vLLM's Anthropic endpoint sends message_start with its first chunk too:
// vllm-project/vllm@0001948bc76939369ca855c90b36d81256477e85:
// vllm/entrypoints/anthropic/serving.py message_stream_converter); then one
// content_block_delta per chunk (text_delta, or input_json_delta for a call); after the last,
// content_block_stop, message_delta (stop_reason, stop_sequence, the whole usage) and
// message_stop.
type messagesAnswer struct{ *answer }

// newMessagesAnswer is an answer framed for the Messages API.
func newMessagesAnswer(id uint64, created int64, model string) *answer {
	a := &answer{id: id, created: created, model: model, out: output{finish: "length"}}
	a.fr = messagesAnswer{a}
	return a
}

// call reports whether the answer is a tool_use block rather than text.
func (m messagesAnswer) call() bool { return m.out.content != nil && m.out.content.Tool != "" }

// stopReason maps the output's finish to Anthropic's stop_reason.
func (m messagesAnswer) stopReason() string {
	switch m.out.finish {
	case "length":
		return "max_tokens"
	case "tool_calls":
		return "tool_use"
	}
	return "end_turn"
}

// appendStart implements framing: nothing before the first token (see messagesAnswer).
func (m messagesAnswer) appendStart(b []byte) []byte { return b }

// appendChunk implements framing: with the first tokens the message's start, its block's
// start and a ping, then the tokens as one delta.
func (m messagesAnswer) appendChunk(b []byte, _, from, tokens int, first, _ bool) []byte {
	if first {
		b = openEvent(b, "message_start")
		b = append(b, `,"message":`...)
		b = m.appendMessage(b, usage{prompt: m.input.prompt, cached: m.input.cached, completion: 1}, false)
		b = endEvent(b)
		b = openEvent(b, "content_block_start")
		b = append(b, `,"index":0,"content_block":`...)
		if m.out.thinks() {
			b = endEvent(m.appendThinkingBlock(b, false))
		} else {
			b = endEvent(m.appendBlock(b, false))
		}
		b = endEvent(openEvent(b, "ping"))
	}
	if from < m.out.thinking {
		b = openEvent(b, "content_block_delta")
		b = append(b, `,"index":0,"delta":{"type":"thinking_delta","thinking":"`...)
		b = m.out.appendTokens(b, from, tokens)
		return endEvent(append(b, `"}`...))
	}
	if m.out.thinks() && from == m.out.thinking { // the thinking's block ends, the answer's opens
		b = endEvent(append(openEvent(b, "content_block_stop"), `,"index":0`...))
		b = openEvent(b, "content_block_start")
		b = append(b, `,"index":1,"content_block":`...)
		b = endEvent(m.appendBlock(b, false))
	}
	b = openEvent(b, "content_block_delta")
	b = m.appendIndex(b)
	if m.call() {
		b = append(b, `,"delta":{"type":"input_json_delta","partial_json":"`...)
	} else {
		b = append(b, `,"delta":{"type":"text_delta","text":"`...)
	}
	b = m.out.appendTokens(b, from, tokens)
	return endEvent(append(b, `"}`...))
}

// appendIndex appends the index of the answer's block, or of the thinking's when nothing
// followed it.
func (m messagesAnswer) appendIndex(b []byte) []byte {
	if m.out.answers() {
		b = append(b, `,"index":`...)
		return strconv.AppendInt(b, int64(m.out.answerIndex()), 10)
	}
	return append(b, `,"index":0`...)
}

// appendEnd implements framing: the block's stop, the message's delta with the whole usage,
// and its stop.
func (m messagesAnswer) appendEnd(b []byte, u usage) []byte {
	b = endEvent(m.appendIndex(openEvent(b, "content_block_stop")))
	b = openEvent(b, "message_delta")
	b = append(b, `,"delta":{"stop_reason":"`...)
	b = append(b, m.stopReason()...)
	b = append(b, `","stop_sequence":null},"usage":`...)
	b = appendAnthropicUsage(b, u)
	b = endEvent(b)
	return endEvent(openEvent(b, "message_stop"))
}

// appendFull implements framing: the message.
func (m messagesAnswer) appendFull(b []byte, _, _ int, u usage) []byte {
	return m.appendMessage(b, u, true)
}

// appendMessage appends the message object: whole, or as message_start gives it (no content,
// stop_reason null).
func (m messagesAnswer) appendMessage(b []byte, u usage, whole bool) []byte {
	b = append(b, `{"id":"msg_sim_`...)
	b = strconv.AppendUint(b, m.id, 10)
	b = append(b, `","type":"message","role":"assistant","model":`...)
	b = appendJSONString(b, m.model)
	b = append(b, `,"content":[`...)
	if whole {
		if m.out.thinks() {
			b = m.appendThinkingBlock(b, true)
		}
		if m.out.answers() {
			if m.out.thinks() {
				b = append(b, ',')
			}
			b = m.appendBlock(b, true)
		}
		b = append(b, `],"stop_reason":"`...)
		b = append(b, m.stopReason()...)
		b = append(b, '"')
	} else {
		b = append(b, `],"stop_reason":null`...)
	}
	b = append(b, `,"stop_sequence":null,"usage":`...)
	b = appendAnthropicUsage(b, u)
	return append(b, '}')
}

// appendBlock appends the content block: as content_block_start opens it (empty), or whole.
// A whole tool_use block's input is the arguments' JSON when they parse, else {} (a call cut
// at max_tokens, as llama.cpp's server gives it).
func (m messagesAnswer) appendBlock(b []byte, whole bool) []byte {
	if !m.call() {
		b = append(b, `{"type":"text","text":"`...)
		if whole {
			b = m.out.appendTokens(b, m.out.thinking, m.out.tokens-m.out.thinking)
		}
		return append(b, `"}`...)
	}
	b = append(b, `{"type":"tool_use","id":"toolu_sim_`...)
	b = strconv.AppendUint(b, m.id, 10)
	b = append(b, `","name":`...)
	b = appendJSONString(b, m.out.content.Tool)
	b = append(b, `,"input":`...)
	if whole {
		b = append(b, m.callInput()...)
	} else {
		b = append(b, "{}"...)
	}
	return append(b, '}')
}

// callInput is a whole call's input: the text of its tokens when that is a JSON object, else
// {}.
func (m messagesAnswer) callInput() []byte {
	var raw []byte
	for i := range m.out.tokens {
		if i < len(m.out.cuts)-1 {
			raw = append(raw, m.out.content.Text[m.out.cuts[i]:m.out.cuts[i+1]]...)
		}
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil || obj == nil {
		return []byte("{}")
	}
	return raw
}

// appendAnthropicUsage appends usage in Anthropic's split (see messagesAnswer).
func appendAnthropicUsage(b []byte, u usage) []byte {
	b = append(b, `{"input_tokens":`...)
	b = strconv.AppendInt(b, int64(u.prompt-u.cached), 10)
	b = append(b, `,"cache_creation_input_tokens":0,"cache_read_input_tokens":`...)
	b = strconv.AppendInt(b, int64(u.cached), 10)
	b = append(b, `,"output_tokens":`...)
	b = strconv.AppendInt(b, int64(u.completion), 10)
	return append(b, '}')
}
