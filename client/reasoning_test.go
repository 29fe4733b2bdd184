package client

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// Reasoning streams of every dialect: thinking and answer chunks told apart, the first of
// each timed, the usage's reasoning count read where the API gives one.

// Chat chunks as vLLM's and SGLang's reasoning parsers stream them (reasoning_content in the
// delta, vllm-project/vllm@82df3f491008e46124f7afb5008c789dc7432515
// vllm/entrypoints/openai/serving_chat.py chat_completion_stream_generator's DeltaMessage;
// later vLLM names it reasoning), llama.cpp's under --reasoning-format deepseek
// (reasoning_content), and the usage's completion_tokens_details.reasoning_tokens as OpenAI's
// chat completion object defines it (https://platform.openai.com/docs/api-reference/chat/object).
func chatReasoningStream(field string, thinking, answer, reasoningTokens int) string {
	var b strings.Builder
	for range thinking {
		fmt.Fprintf(&b, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{%q:\" hm\"},\"finish_reason\":null}]}\n\n", field)
	}
	for range answer {
		b.WriteString(`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" yes"},"finish_reason":null}]}` + "\n\n")
	}
	b.WriteString(`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n")
	fmt.Fprintf(&b, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":%d,\"total_tokens\":%d,\"completion_tokens_details\":{\"reasoning_tokens\":%d}}}\n\n",
		thinking+answer, 9+thinking+answer, reasoningTokens)
	return b.String() + "data: [DONE]\n\n"
}

// thinkTagStream is a chat stream of a server with no reasoning parser: the think block in
// the content, its close and the answer's start in one chunk.
const thinkTagStream = `data: {"choices":[{"index":0,"delta":{"content":"<think>"}}]}` + "\n\n" +
	`data: {"choices":[{"index":0,"delta":{"content":"\nThe user"}}]}` + "\n\n" +
	`data: {"choices":[{"index":0,"delta":{"content":" asks \u003c/think\u003e\n\nYes"}}]}` + "\n\n" +
	`data: {"choices":[{"index":0,"delta":{"content":", it is."},"finish_reason":"stop"}]}` + "\n\n" +
	`data: {"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":6}}` + "\n\n" + "data: [DONE]\n\n"

type reasoningCase struct {
	name, api, body                string
	reasoningChunks, answerChunks  int
	reasoningTokens, completionTok int
}

func TestReasoningStreams(t *testing.T) {
	responsesOpen := sseEvent(responsesCreated) + sseEvent(responsesItemAdded)
	// A reasoning summary's delta, as the Responses streaming reference shows it.
	summaryDelta := `{"type":"response.reasoning_summary_text.delta","item_id":"rs_6806bfca","output_index":0,"summary_index":0,"delta":"**Respond","sequence_number":1}`
	completedReasoning := strings.Replace(responsesCompleted, `"output_tokens":3,"output_tokens_details":{"reasoning_tokens":0}`, `"output_tokens":3,"output_tokens_details":{"reasoning_tokens":2}`, 1)
	cases := []reasoningCase{
		{"chat reasoning_content", APIChat, chatReasoningStream("reasoning_content", 4, 2, 4), 4, 2, 4, 6},
		{"chat reasoning (later vLLM)", APIChat, chatReasoningStream("reasoning", 3, 1, 3), 3, 1, 3, 4},
		{"chat thought and never answered", APIChat, chatReasoningStream("reasoning_content", 5, 0, 5), 5, 0, 5, 5},
		{"chat think tags in content", APIChat, thinkTagStream, 3, 2, -1, 6},
		{"responses reasoning events", APIResponses, responsesOpen + sseEvent(responsesReasoningDelta) + sseEvent(summaryDelta) + sseEvent(responsesDelta) + sseEvent(completedReasoning), 2, 1, 2, 3},
		{"messages thinking blocks", APIMessages, sseEvent(messagesStart) + sseEvent(messagesThinkingDelta) + sseEvent(messagesSignature) + sseEvent(messagesThinkingDelta) +
			sseEvent(messagesBlockStop) + sseEvent(messagesTextDelta) + sseEvent(fmt.Sprintf(messagesDelta, "end_turn", 3)) + sseEvent(messagesStop), 2, 1, -1, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := rawSSE(t, tc.body)
			r := newClient(t, srv.URL, tc.api, nil).Do(context.Background(), Request{Prompt: "x", MaxTokens: 8}, newClock())
			if r.ErrorClass != "" {
				t.Fatalf("class %q: %s", r.ErrorClass, r.ErrorMessage)
			}
			if r.ReasoningChunks != tc.reasoningChunks || r.AnswerChunks != tc.answerChunks {
				t.Errorf("reasoning %d, answer %d chunks; want %d, %d", r.ReasoningChunks, r.AnswerChunks, tc.reasoningChunks, tc.answerChunks)
			}
			if r.ReasoningTokens != tc.reasoningTokens || r.CompletionTokens != tc.completionTok {
				t.Errorf("usage reasoning %d of %d; want %d of %d", r.ReasoningTokens, r.CompletionTokens, tc.reasoningTokens, tc.completionTok)
			}
			if (r.FirstReasoningNS == 0) != (tc.reasoningChunks == 0) || (r.FirstAnswerNS == 0) != (tc.answerChunks == 0) {
				t.Errorf("first reasoning %d, first answer %d", r.FirstReasoningNS, r.FirstAnswerNS)
			}
			if r.FirstTokenNS != r.ChunkNS[0] || (r.FirstAnswerNS != 0 && r.FirstAnswerNS < r.FirstReasoningNS) {
				t.Errorf("first token %d, reasoning %d, answer %d", r.FirstTokenNS, r.FirstReasoningNS, r.FirstAnswerNS)
			}
		})
	}
}

// A server that splits thinking out is taken at its word: think tags in its content are text.
func TestThinkTagsAfterSplitAreAnswer(t *testing.T) {
	body := `data: {"choices":[{"index":0,"delta":{"reasoning_content":"hm"}}]}` + "\n\n" +
		`data: {"choices":[{"index":0,"delta":{"content":"<think> is a tag"},"finish_reason":"stop"}]}` + "\n\n" + "data: [DONE]\n\n"
	srv := rawSSE(t, body)
	r := newClient(t, srv.URL, APIChat, func(c *Config) { c.OmitUsage = true }).Do(context.Background(), Request{Prompt: "x", MaxTokens: 8}, newClock())
	if r.ErrorClass != "" || r.ReasoningChunks != 1 || r.AnswerChunks != 1 {
		t.Fatalf("class %q (%s), reasoning %d, answer %d chunks; want 1 and 1", r.ErrorClass, r.ErrorMessage, r.ReasoningChunks, r.AnswerChunks)
	}
}
