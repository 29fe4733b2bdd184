package sim

import "strconv"

// thinking.go is how the simulator thinks: a request carrying vLLM's thinking_token_budget
// (Request.Thinking) spends the first that many tokens of each choice thinking, streamed in
// its API's reasoning dialect before the answer, and counted in the usage where the API breaks
// thinking out. The shapes are the ones engines serve:
//   - chat: reasoning_content deltas, the message's reasoning_content when whole, and usage's
//     completion_tokens_details.reasoning_tokens (vLLM's reasoning parsers,
//     vllm-project/vllm@82df3f491008e46124f7afb5008c789dc7432515
//     vllm/entrypoints/openai/serving_chat.py; llama.cpp's --reasoning-format deepseek; the
//     usage as OpenAI's chat completion object defines it);
//   - Responses: a reasoning output item before the message, its reasoning_text deltas, and
//     usage's output_tokens_details.reasoning_tokens (openai-python@
//     e43b422412a9e96c9cc5192c61fffbe2d7e04836: src/openai/types/responses/
//     response_reasoning_item.py, response_reasoning_text_delta_event.py);
//   - Messages: a thinking content block before the text block, thinking_delta deltas (the
//     streaming guide's extended thinking example); Anthropic's usage has no thinking count.
// The filler is the thinking's text too: the simulator models cost, not content.

// thinks reports whether the answer's choices think before answering.
func (o *output) thinks() bool { return o.thinking > 0 }

// answers reports whether anything follows the thinking.
func (o *output) answers() bool { return o.tokens > o.thinking }

// appendThinkingDelta appends a chat chunk's delta of thinking tokens [from, from+tokens).
func (a *answer) appendThinkingDelta(b []byte, from, tokens int, first bool) []byte {
	b = append(b, `,"delta":{`...)
	if first {
		b = append(b, `"role":"assistant",`...)
	}
	b = append(b, `"reasoning_content":"`...)
	b = a.out.appendTokens(b, from, tokens)
	return append(b, `"}`...)
}

// appendThinkingMember appends a whole chat message's reasoning_content member and its comma,
// nothing when the answer did not think.
func (a *answer) appendThinkingMember(b []byte) []byte {
	if !a.out.thinks() {
		return b
	}
	b = append(b, `"reasoning_content":"`...)
	b = a.out.appendTokens(b, 0, a.out.thinking)
	return append(b, `",`...)
}

// appendThinkingBlock appends a Messages thinking block, empty (as content_block_start opens
// it) or whole; the simulator signs nothing, so its signature is empty.
func (m messagesAnswer) appendThinkingBlock(b []byte, whole bool) []byte {
	b = append(b, `{"type":"thinking","thinking":"`...)
	if whole {
		b = m.out.appendTokens(b, 0, m.out.thinking)
	}
	return append(b, `","signature":""}`...)
}

// answerIndex is the index of the answer's block (Messages) or item (Responses): after the
// thinking's, when there is one.
func (o *output) answerIndex() int {
	if o.thinks() {
		return 1
	}
	return 0
}

// appendOutputIndex appends the answer item's output_index.
func (r *responsesAnswer) appendOutputIndex(b []byte) []byte {
	if r.out.thinks() {
		return append(b, `,"output_index":1`...)
	}
	return append(b, `,"output_index":0`...)
}

// appendThinkingChunk appends a Responses stream's thinking events for tokens [from,
// from+tokens): with the first, the reasoning item's added event; while they are thinking,
// their reasoning_text delta; at the first answer token, the reasoning item's done events.
func (r *responsesAnswer) appendThinkingChunk(b []byte, from, tokens int, first bool) []byte {
	if first {
		b = r.event(b, "response.output_item.added")
		b = append(b, `,"output_index":0,"item":`...)
		b = endEvent(r.appendReasoningItem(b, false))
	}
	if from >= r.out.thinking {
		return r.appendThinkingDone(b)
	}
	b = r.event(b, "response.reasoning_text.delta")
	b = r.appendReasoningRef(b)
	b = append(b, `,"delta":"`...)
	b = r.out.appendTokens(b, from, tokens)
	return endEvent(append(b, '"'))
}

// appendThinkingDone appends the reasoning text's and the reasoning item's done events.
func (r *responsesAnswer) appendThinkingDone(b []byte) []byte {
	b = r.event(b, "response.reasoning_text.done")
	b = r.appendReasoningRef(b)
	b = append(b, `,"text":"`...)
	b = r.out.appendTokens(b, 0, r.out.thinking)
	b = endEvent(append(b, '"'))
	b = r.event(b, "response.output_item.done")
	b = append(b, `,"output_index":0,"item":`...)
	return endEvent(r.appendReasoningItem(b, true))
}

// appendReasoningRef appends the members placing a reasoning text event: its item and part.
func (r *responsesAnswer) appendReasoningRef(b []byte) []byte {
	b = append(b, `,"item_id":"rs_sim_`...)
	b = strconv.AppendUint(b, r.id, 10)
	return append(b, `","output_index":0,"content_index":0`...)
}

// appendReasoningItem appends the reasoning output item, in progress (no text yet) or done.
func (r *responsesAnswer) appendReasoningItem(b []byte, done bool) []byte {
	b = append(b, `{"id":"rs_sim_`...)
	b = strconv.AppendUint(b, r.id, 10)
	b = append(b, `","type":"reasoning","summary":[],"content":[`...)
	status := "in_progress"
	if done {
		status = "completed"
		b = append(b, `{"type":"reasoning_text","text":"`...)
		b = r.out.appendTokens(b, 0, r.out.thinking)
		b = append(b, `"}`...)
	}
	b = append(b, `],"status":"`...)
	b = append(b, status...)
	return append(b, `"}`...)
}

// appendWholeOutput appends a whole response's output items: the reasoning item when the
// answer thought, then the message or call when anything followed.
func (r *responsesAnswer) appendWholeOutput(b []byte) []byte {
	if r.out.thinks() {
		b = r.appendReasoningItem(b, true)
		if !r.out.answers() {
			return b
		}
		b = append(b, ',')
	}
	return r.appendItem(b, true)
}
