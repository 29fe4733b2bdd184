package sim

import "strconv"

// responsesAnswer frames an answer as the Responses API does (openai-python@
// e43b422412a9e96c9cc5192c61fffbe2d7e04836: src/openai/types/responses/response.py,
// response_usage.py, response_output_message.py, response_output_text.py,
// response_function_tool_call.py and the *_event.py of each streamed event). One output item:
// the assistant's message with one output_text part, or the function_call a forced tool choice
// makes. A response that ran to max_output_tokens (every filler answer, as chat's ends with
// finish_reason "length") is "incomplete" with incomplete_details.reason "max_output_tokens",
// its item too; any other is "completed". A stream is SSE with an `event:` line naming each
// event's type, numbered from 0 by sequence_number (as vLLM numbers them:
// vllm-project/vllm@01e4fce07423dafcc832600ba05159fb28dc1126:
// vllm/entrypoints/openai/responses/streaming_events.py): response.created and
// response.in_progress once the headers are out; with the first token response.output_item.added
// and response.content_part.added; one response.output_text.delta per chunk (TokensPerChunk
// tokens); after the last response.output_text.done, response.content_part.done,
// response.output_item.done and response.completed (or response.incomplete) with the whole
// response and its usage. A function call streams response.function_call_arguments.delta and
// .done instead of the text and part events. No [DONE] follows: the API has none. (llama.cpp's
// server streams these events without sequence_number: ggml-org/llama.cpp@
// 00efb3e184262872916bf136b3df63c1822a19bd: tools/server/server-task.cpp
// to_json_oaicompat_resp_stream.)
type responsesAnswer struct {
	*answer
	echo *responsesEcho
	// seq is the next event's sequence_number.
	seq int
}

// newResponsesAnswer is an answer framed for the Responses API, repeating echo of its request.
func newResponsesAnswer(echo *responsesEcho, id uint64, created int64, model string) *answer {
	a := &answer{id: id, created: created, model: model, out: output{finish: "length"}}
	if echo == nil {
		echo = &responsesEcho{}
	}
	a.fr = &responsesAnswer{answer: a, echo: echo}
	return a
}

// call reports whether the answer is a function call rather than a message.
func (r *responsesAnswer) call() bool { return r.out.content != nil && r.out.content.Tool != "" }

// status is the response's (and its item's) status once the answer is whole.
func (r *responsesAnswer) status() string {
	if r.out.finish == "length" {
		return "incomplete"
	}
	return "completed"
}

// event opens an event of type typ: its event line, then its data's type and sequence_number.
// The caller appends the rest of the data object and closes it with endEvent.
func (r *responsesAnswer) event(b []byte, typ string) []byte {
	b = openEvent(b, typ)
	b = append(b, `,"sequence_number":`...)
	b = strconv.AppendInt(b, int64(r.seq), 10)
	r.seq++
	return b
}

// openEvent opens a named SSE event, as the Responses and Messages APIs stream them: its
// event line, then its data object with the same type. The caller appends the rest of the
// data's members and closes it with endEvent.
func openEvent(b []byte, typ string) []byte {
	b = append(b, "event: "...)
	b = append(b, typ...)
	b = append(b, "\ndata: {\"type\":\""...)
	b = append(b, typ...)
	return append(b, '"')
}

func endEvent(b []byte) []byte { return append(b, "}\n\n"...) }

// appendStart implements framing: response.created and response.in_progress, the response as
// it stands before any output.
func (r *responsesAnswer) appendStart(b []byte) []byte {
	for _, typ := range [...]string{"response.created", "response.in_progress"} {
		b = r.event(b, typ)
		b = append(b, `,"response":`...)
		b = r.appendResponse(b, "in_progress", nil)
		b = endEvent(b)
	}
	return b
}

// appendChunk implements framing: with the first tokens the item's (and its text part's)
// added events, then the tokens as one delta event.
func (r *responsesAnswer) appendChunk(b []byte, _, from, tokens int, first, _ bool) []byte {
	if r.out.thinks() && from <= r.out.thinking {
		if b = r.appendThinkingChunk(b, from, tokens, first); from < r.out.thinking {
			return b
		}
		first = true // the answer's first tokens
	}
	if first {
		b = r.event(b, "response.output_item.added")
		b = r.appendOutputIndex(b)
		b = append(b, `,"item":`...)
		b = r.appendItem(b, false)
		b = endEvent(b)
		if !r.call() {
			b = r.event(b, "response.content_part.added")
			b = r.appendItemRef(b, true)
			b = append(b, `,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":""}`...)
			b = endEvent(b)
		}
	}
	if r.call() {
		b = r.event(b, "response.function_call_arguments.delta")
		b = r.appendItemRef(b, false)
	} else {
		b = r.event(b, "response.output_text.delta")
		b = r.appendItemRef(b, true)
	}
	b = append(b, `,"delta":"`...)
	b = r.out.appendTokens(b, from, tokens)
	b = append(b, '"')
	if !r.call() {
		b = append(b, `,"logprobs":[]`...)
	}
	return endEvent(b)
}

// appendEnd implements framing: the item's done events, then the whole response.
func (r *responsesAnswer) appendEnd(b []byte, u usage) []byte {
	if !r.out.answers() { // it thought to the cap: only the reasoning item ends
		b = r.appendThinkingDone(b)
		b = r.event(b, "response."+r.status())
		b = append(b, `,"response":`...)
		return endEvent(r.appendResponse(b, r.status(), &u))
	}
	if r.call() {
		b = r.event(b, "response.function_call_arguments.done")
		b = r.appendItemRef(b, false)
		b = append(b, `,"name":`...)
		b = appendJSONString(b, r.out.content.Tool)
		b = append(b, `,"arguments":"`...)
		b = r.out.appendTokens(b, 0, r.out.tokens)
		b = endEvent(append(b, '"'))
	} else {
		b = r.event(b, "response.output_text.done")
		b = r.appendItemRef(b, true)
		b = append(b, `,"text":"`...)
		b = r.out.appendTokens(b, r.out.thinking, r.out.tokens-r.out.thinking)
		b = endEvent(append(b, `","logprobs":[]`...))
		b = r.event(b, "response.content_part.done")
		b = r.appendItemRef(b, true)
		b = append(b, `,"part":`...)
		b = endEvent(r.appendTextPart(b))
	}
	b = r.event(b, "response.output_item.done")
	b = r.appendOutputIndex(b)
	b = append(b, `,"item":`...)
	b = endEvent(r.appendItem(b, true))
	b = r.event(b, "response."+r.status())
	b = append(b, `,"response":`...)
	return endEvent(r.appendResponse(b, r.status(), &u))
}

// appendFull implements framing: the response object.
func (r *responsesAnswer) appendFull(b []byte, _, _ int, u usage) []byte {
	return r.appendResponse(b, r.status(), &u)
}

// appendItemRef appends the members that place an event in the output: the item's id, its
// index and, for a text event, its part's index.
func (r *responsesAnswer) appendItemRef(b []byte, part bool) []byte {
	b = append(b, `,"item_id":`...)
	b = r.appendItemID(b)
	b = r.appendOutputIndex(b)
	if part {
		b = append(b, `,"content_index":0`...)
	}
	return b
}

// appendItemID appends the output item's id: msg_ for a message, fc_ for a function call.
func (r *responsesAnswer) appendItemID(b []byte) []byte {
	prefix := `"msg_sim_`
	if r.call() {
		prefix = `"fc_sim_`
	}
	b = append(b, prefix...)
	b = strconv.AppendUint(b, r.id, 10)
	return append(b, '"')
}

// appendItem appends the output item, in progress (nothing said yet) or done.
func (r *responsesAnswer) appendItem(b []byte, done bool) []byte {
	status := "in_progress"
	if done {
		status = r.status()
	}
	b = append(b, `{"id":`...)
	b = r.appendItemID(b)
	if r.call() {
		b = append(b, `,"type":"function_call","status":"`...)
		b = append(b, status...)
		b = append(b, `","call_id":`...)
		b = r.appendCallID(b, 0)
		b = append(b, `,"name":`...)
		b = appendJSONString(b, r.out.content.Tool)
		b = append(b, `,"arguments":"`...)
		if done {
			b = r.out.appendTokens(b, 0, r.out.tokens)
		}
		return append(b, `"}`...)
	}
	b = append(b, `,"type":"message","status":"`...)
	b = append(b, status...)
	b = append(b, `","role":"assistant","content":[`...)
	if done {
		b = r.appendTextPart(b)
	}
	return append(b, "]}"...)
}

// appendTextPart appends the message's whole output_text part.
func (r *responsesAnswer) appendTextPart(b []byte) []byte {
	b = append(b, `{"type":"output_text","annotations":[],"logprobs":[],"text":"`...)
	b = r.out.appendTokens(b, r.out.thinking, r.out.tokens-r.out.thinking)
	return append(b, `"}`...)
}

// appendResponse appends the response object: before any output (u nil: no output, usage
// null) or whole.
func (r *responsesAnswer) appendResponse(b []byte, status string, u *usage) []byte {
	b = append(b, `{"id":"resp_sim_`...)
	b = strconv.AppendUint(b, r.id, 10)
	b = append(b, `","object":"response","created_at":`...)
	b = strconv.AppendInt(b, r.created, 10)
	b = append(b, `,"status":"`...)
	b = append(b, status...)
	b = append(b, `","error":null,"incomplete_details":`...)
	if status == "incomplete" {
		b = append(b, `{"reason":"max_output_tokens"}`...)
	} else {
		b = append(b, "null"...)
	}
	b = r.appendEcho(b)
	b = append(b, `,"output":[`...)
	if u != nil {
		b = r.appendWholeOutput(b)
	}
	b = append(b, `],"usage":`...)
	if u == nil {
		return append(b, "null}"...)
	}
	b = appendResponsesUsage(b, *u)
	return append(b, '}')
}

// appendEcho appends what the response repeats of its request, and the model.
func (r *responsesAnswer) appendEcho(b []byte) []byte {
	e := r.echo
	b = append(b, `,"instructions":`...)
	if e.instructions != nil {
		b = appendJSONString(b, *e.instructions)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"max_output_tokens":`...)
	if e.maxOutput.set {
		b = strconv.AppendInt(b, int64(e.maxOutput.v), 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"model":`...)
	b = appendJSONString(b, r.model)
	b = append(b, `,"parallel_tool_calls":true,"temperature":`...)
	b = appendOptFloat(b, e.temperature)
	b = append(b, `,"tool_choice":`...)
	b = appendRawOr(b, e.toolChoice, `"auto"`)
	b = append(b, `,"tools":`...)
	b = appendRawOr(b, e.tools, "[]")
	b = append(b, `,"top_p":`...)
	return appendOptFloat(b, e.topP)
}

// appendResponsesUsage appends a response's usage: input tokens with the cached part of them
// (and no cache writes: the prefix cache is automatic), output tokens with the thinking part of
// them, their total.
func appendResponsesUsage(b []byte, u usage) []byte {
	b = append(b, `{"input_tokens":`...)
	b = strconv.AppendInt(b, int64(u.prompt), 10)
	b = append(b, `,"input_tokens_details":{"cache_write_tokens":0,"cached_tokens":`...)
	b = strconv.AppendInt(b, int64(u.cached), 10)
	b = append(b, `},"output_tokens":`...)
	b = strconv.AppendInt(b, int64(u.completion), 10)
	b = append(b, `,"output_tokens_details":{"reasoning_tokens":`...)
	b = strconv.AppendInt(b, int64(u.reasoning), 10)
	b = append(b, `},"total_tokens":`...)
	b = strconv.AppendInt(b, int64(u.prompt+u.completion), 10)
	return append(b, '}')
}

func appendOptFloat(b []byte, v opt[float64]) []byte {
	if !v.set {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, v.v, 'g', -1, 64)
}

// appendRawOr appends raw JSON, or def when there is none.
func appendRawOr(b []byte, raw []byte, def string) []byte {
	if len(raw) == 0 {
		return append(b, def...)
	}
	return append(b, raw...)
}
