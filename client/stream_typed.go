package client

import "bytes"

// stream_typed.go reads the typed event streams of the Responses and Messages APIs (typed.go
// says their shapes), judged as strictly as chat's: content chunks are the output deltas
// (text, reasoning, refusal, a call's arguments; Anthropic's text_delta, input_json_delta and
// thinking_delta), the usage is the API's own, and the stream is complete at its terminal
// event (response.completed or response.incomplete; message_stop) as chat's is at [DONE].
// Neither API ends with [DONE], but vLLM's Messages stream sends one after message_stop
// (vllm-project/vllm@82df3f491008e46124f7afb5008c789dc7432515
// vllm/entrypoints/anthropic/serving.py, message_stream_converter), so a [DONE] line is
// accepted and otherwise ignored; what follows the terminal event is read but not judged.

// typedLine handles one line of a typed stream.
func (st *streamState) typedLine(l []byte, now int64, r *Response) {
	switch {
	case len(l) == 0: // an event's end: its event name no longer applies
		st.errEvent = false
		return
	case bytes.HasPrefix(l, []byte("event:")):
		st.errEvent = string(bytes.TrimSpace(l[6:])) == "error"
		return
	case len(l) < 5 || string(l[:5]) != "data:":
		st.junkLine(l)
		return
	}
	p := bytes.TrimSpace(l[5:])
	if string(p) == "[DONE]" {
		return
	}
	st.dataLines++
	e, ok := parseEvent(p)
	if !ok {
		st.badFrame(l)
		return
	}
	if !e.typ.of(st.api) {
		e.typ = evOther // another API's event says nothing here
	}
	if e.isError() || st.errEvent {
		if !st.errFrame {
			st.typedError(&e, p)
		}
		return
	}
	st.event(&e, now, r)
}

// event records what a typed event carries.
func (st *streamState) event(e *event, now int64, r *Response) {
	switch e.typ {
	case evOutputDelta, evToolDelta:
		if e.deltaText {
			chunk(now, r, false, true)
			st.sawTool = st.sawTool || e.typ == evToolDelta
		}
	case evReasoningDelta:
		if e.deltaText {
			chunk(now, r, true, false)
		}
	case evBlockDelta:
		if e.blockText || e.blockThinking {
			chunk(now, r, e.blockThinking, e.blockText)
		}
	case evMessageStart, evMessageDelta:
		st.addTokens(e.usage, r)
		if e.stop != "" {
			st.finished, st.finish, st.length = true, e.stop, e.stop == "length"
		}
	case evCompleted, evIncomplete:
		st.addTokens(e.usage, r)
		st.finish = responseFinish(e, st.sawTool)
		st.finished, st.length = true, st.finish == "length"
		st.done, r.DoneNS = true, now
	case evMessageStop:
		st.done, r.DoneNS = true, now
	}
}

// responseFinish is a finished response's finish word: "length" when it is incomplete at its
// cap (a response.incomplete, or a response.completed whose response says status
// incomplete, as vLLM sends it), the incomplete reason's word for another reason,
// "tool_calls" when it called a function, else "stop".
func responseFinish(e *event, sawTool bool) string {
	switch {
	case e.typ == evIncomplete || e.status == "incomplete":
		if e.reason == "" {
			return "length" // vLLM says incomplete only for finish_reason length
		}
		return e.reason
	case sawTool || e.toolCall:
		return "tool_calls"
	}
	return "stop"
}

// addTokens merges an event's usage into the stream's and sets r's counts from it: the
// prompt is input_tokens plus Anthropic's cache reads and writes, which its input_tokens
// leaves out; cached is the Responses API's input_tokens_details.cached_tokens or Anthropic's
// cache_read_input_tokens (counts says why).
func (st *streamState) addTokens(u tokens, r *Response) {
	if !u.has {
		return
	}
	t := &st.tu
	for _, f := range [...]struct{ dst, src *int64 }{{&t.input, &u.input}, {&t.output, &u.output},
		{&t.cacheRead, &u.cacheRead}, {&t.cacheCreate, &u.cacheCreate}, {&t.cached, &u.cached},
		{&t.reasoning, &u.reasoning}} {
		if *f.src >= 0 {
			*f.dst = *f.src
		}
	}
	prompt, completion, cached := t.counts(st.api)
	if prompt > 0 || completion > 0 {
		st.usage = true
	}
	r.PromptTokens, r.CompletionTokens, r.CachedTokens = prompt, completion, cached
	r.ReasoningTokens = int(t.reasoning)
}

// counts are t's prompt, completion and cached tokens on api, each -1 when not reported.
//
// Anthropic's input_tokens counts only the tokens after the last cache breakpoint: the
// prompt is input_tokens + cache_read_input_tokens + cache_creation_input_tokens
// (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching, "Tracking cache
// performance"), and the cached part is cache_read_input_tokens. The engines that serve
// /v1/messages report the whole prompt as input_tokens and no cache fields (llama.cpp's
// n_prompt_tokens: ggml-org/llama.cpp@00efb3e184262872916bf136b3df63c1822a19bd
// tools/server/server-task.cpp, to_json_anthropic and to_json_anthropic_stream; vLLM's
// prompt_tokens: vllm-project/vllm@82df3f491008e46124f7afb5008c789dc7432515
// vllm/entrypoints/anthropic/serving.py), so the same sum is their prompt too, and their
// cached tokens are unknown (-1).
func (t *tokens) counts(api apiKind) (prompt, completion, cached int) {
	p := t.input
	if p >= 0 {
		p += max(t.cacheRead, 0) + max(t.cacheCreate, 0)
	}
	c := t.cached
	if api == kindMessages {
		c = t.cacheRead
	}
	return int(p), int(t.output), int(c)
}

// typedError keeps the first error event's class and message.
func (st *streamState) typedError(e *event, p []byte) {
	st.errFrame = true
	st.errClass = e.class()
	st.errMsg = truncate(decodeRaw(e.errMessage()))
	if st.errMsg == "" {
		st.errMsg = truncate("stream error: " + string(p))
	}
}
