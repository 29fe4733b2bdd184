package client

import (
	"fmt"
	"net/http"
	"strings"
)

// Fixtures of the Responses, Messages and embeddings APIs' answers, written from their
// published definitions (each cited) and from the engines that serve them.

// sseEvent is one typed SSE event: "event: <name>" then "data: <json>".
func sseEvent(data string) string {
	name := ""
	if i := strings.Index(data, `"type":"`); i >= 0 {
		rest := data[i+len(`"type":"`):]
		name = rest[:strings.IndexByte(rest, '"')]
	}
	return "event: " + name + "\ndata: " + data + "\n\n"
}

func writeSSE(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(200)
	w.Write([]byte(body))
}

// The Responses API's streaming events, as its reference shows them
// (https://platform.openai.com/docs/api-reference/responses-streaming: response.created,
// response.output_item.added, response.content_part.added, response.output_text.delta,
// response.output_text.done, response.completed), ids and texts shortened; the usage counts,
// all 0 in the reference's example, are made real.
const (
	responsesCreated   = `{"type":"response.created","response":{"id":"resp_123","object":"response","created_at":1741487325,"status":"in_progress","error":null,"incomplete_details":null,"instructions":null,"max_output_tokens":null,"model":"gpt-4o-2024-08-06","output":[],"parallel_tool_calls":true,"previous_response_id":null,"reasoning":{"effort":null,"summary":null},"store":true,"temperature":1,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":1,"truncation":"disabled","usage":null,"user":null,"metadata":{}},"sequence_number":0}`
	responsesItemAdded = `{"type":"response.output_item.added","output_index":0,"item":{"id":"msg_123","status":"in_progress","type":"message","role":"assistant","content":[]},"sequence_number":1}`
	responsesPartAdded = `{"type":"response.content_part.added","item_id":"msg_123","output_index":0,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]},"sequence_number":2}`
	responsesDelta     = `{"type":"response.output_text.delta","item_id":"msg_123","output_index":0,"content_index":0,"delta":"In","sequence_number":3}`
	responsesTextDone  = `{"type":"response.output_text.done","item_id":"msg_123","output_index":0,"content_index":0,"text":"In a shimmering forest","sequence_number":4}`
	responsesCompleted = `{"type":"response.completed","response":{"id":"resp_123","object":"response","created_at":1740855869,"status":"completed","error":null,"incomplete_details":null,"input":[],"instructions":null,"max_output_tokens":null,"model":"gpt-4o-mini-2024-07-18","output":[{"id":"msg_123","type":"message","role":"assistant","content":[{"type":"output_text","text":"In a shimmering forest","annotations":[]}]}],"previous_response_id":null,"reasoning_effort":null,"store":false,"temperature":1,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":1,"truncation":"disabled","usage":{"input_tokens":36,"input_tokens_details":{"cached_tokens":16},"output_tokens":3,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":39},"user":null,"metadata":{}},"sequence_number":5}`
	// response.incomplete and response.failed and the error event, from the same reference
	// (its incomplete example writes the reason "max_tokens").
	responsesIncomplete = `{"type":"response.incomplete","response":{"id":"resp_123","object":"response","created_at":1740855869,"status":"incomplete","error":null,"incomplete_details":{"reason":"max_tokens"},"instructions":null,"max_output_tokens":null,"model":"gpt-4o-mini-2024-07-18","output":[],"previous_response_id":null,"reasoning_effort":null,"store":false,"temperature":1,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":1,"truncation":"disabled","usage":{"input_tokens":36,"output_tokens":%d,"total_tokens":39},"user":null,"metadata":{}},"sequence_number":5}`
	responsesFailed     = `{"type":"response.failed","response":{"id":"resp_123","object":"response","created_at":1740855869,"status":"failed","error":{"code":"server_error","message":"The model failed to generate a response."},"incomplete_details":null,"instructions":null,"max_output_tokens":null,"model":"gpt-4o-mini-2024-07-18","output":[],"previous_response_id":null,"reasoning_effort":null,"store":false,"temperature":1,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":1,"truncation":"disabled","usage":null,"user":null,"metadata":{}},"sequence_number":1}`
	responsesError      = `{"type":"error","code":"ERR_SOMETHING","message":"Something went wrong","param":null,"sequence_number":1}`
	// A function call's and reasoning's deltas (same reference).
	responsesArgsDelta      = `{"type":"response.function_call_arguments.delta","item_id":"item-abc","output_index":0,"delta":"{ \"arg\":","sequence_number":1}`
	responsesReasoningDelta = `{"type":"response.reasoning_text.delta","item_id":"rs_123","output_index":0,"content_index":0,"delta":"The","sequence_number":1}`
	// vLLM ends every stream with response.completed, its response's status saying
	// incomplete when the cap ended it (vllm-project/vllm@4d89a999c51e191a959a49e44cf7d6697f96cf6a
	// vllm/entrypoints/openai/responses/serving.py); usage with input_tokens_details.
	vllmCompletedIncomplete = `{"type":"response.completed","sequence_number":9,"response":{"id":"resp_1","object":"response","status":"incomplete","incomplete_details":null,"output":[],"usage":{"input_tokens":12,"input_tokens_details":{"cached_tokens":0},"output_tokens":%d,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":20}}}`
	// llama.cpp's mid-stream error on /v1/responses is chat's {"error": {...}} without an event
	// line (ggml-org/llama.cpp@001d906a6d86e2490e394361e7cc6f478b100088
	// tools/server/server-context.cpp, handle_completions_impl's format_error).
	llamaResponsesError = `{"error":{"code":500,"message":"slot died","type":"server_error"}}`
)

// responsesStream is n output_text deltas between the reference's opening events and end.
func responsesStream(n int, end string) string {
	var b strings.Builder
	for _, e := range []string{responsesCreated, responsesItemAdded, responsesPartAdded} {
		b.WriteString(sseEvent(e))
	}
	for range n {
		b.WriteString(sseEvent(responsesDelta))
	}
	b.WriteString(sseEvent(responsesTextDone))
	b.WriteString(sseEvent(end))
	return b.String()
}

// The Messages API's stream, as Anthropic's streaming guide shows a whole one
// (https://docs.anthropic.com/en/docs/build-with-claude/streaming, "Basic streaming
// request"), spaces after the colons dropped; usage with the cache fields its Messages
// reference defines (cache_read_input_tokens, cache_creation_input_tokens).
const (
	messagesStart      = `{"type":"message_start","message":{"id":"msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY","type":"message","role":"assistant","content":[],"model":"claude-opus-4-6","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}}`
	messagesStartCache = `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-opus-4-6","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":10,"cache_read_input_tokens":100,"output_tokens":1}}}`
	messagesBlockStart = `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`
	messagesPing       = `{"type":"ping"}`
	messagesTextDelta  = `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`
	messagesBlockStop  = `{"type":"content_block_stop","index":0}`
	messagesDelta      = `{"type":"message_delta","delta":{"stop_reason":"%s","stop_sequence":null},"usage":{"output_tokens":%d}}`
	messagesStop       = `{"type":"message_stop"}`
	// Tool use's and extended thinking's deltas, and an error event (same guide).
	messagesJSONDelta     = `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"location\": \"San Fra"}}`
	messagesThinkingDelta = `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me solve this step by step"}}`
	messagesSignature     = `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM"}}`
	messagesOverloaded    = `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	// llama.cpp's error event data is its error object, no "type": "error" in it (its
	// "event: error" line says it: ggml-org/llama.cpp@001d906a6d86e2490e394361e7cc6f478b100088
	// tools/server/server-context.cpp).
	llamaMessagesError = `{"code":500,"message":"slot died","type":"server_error"}`
)

// messagesStream is the guide's stream with n text deltas, ending at stop (its usage
// reporting n output tokens).
func messagesStream(n int, stop string) string {
	var b strings.Builder
	for _, e := range []string{messagesStart, messagesBlockStart, messagesPing} {
		b.WriteString(sseEvent(e))
	}
	for range n {
		b.WriteString(sseEvent(messagesTextDelta))
	}
	b.WriteString(sseEvent(messagesBlockStop))
	b.WriteString(sseEvent(fmt.Sprintf(messagesDelta, stop, n)))
	b.WriteString(sseEvent(messagesStop))
	return b.String()
}

// Whole answers: a response object and a message as the references' examples show them
// (https://platform.openai.com/docs/api-reference/responses/create, its response;
// https://docs.anthropic.com/en/api/messages, its 200 response), and an embeddings list
// (https://platform.openai.com/docs/api-reference/embeddings/object).
const (
	responsesObject = `{"id":"resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b","object":"response","created_at":1741476542,"status":"completed","error":null,"incomplete_details":null,"instructions":null,"max_output_tokens":null,"model":"gpt-4.1-2025-04-14","output":[{"type":"message","id":"msg_67ccd2bf17f0819081ff3bb2cf6508e60bb6a6b452d3795b","status":"completed","role":"assistant","content":[{"type":"output_text","text":"In a peaceful grove beneath a silver moon...","annotations":[]}]}],"parallel_tool_calls":true,"previous_response_id":null,"reasoning":{"effort":null,"summary":null},"store":true,"temperature":1.0,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":1.0,"truncation":"disabled","usage":{"input_tokens":36,"input_tokens_details":{"cached_tokens":0},"output_tokens":87,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":123},"user":null,"metadata":{}}`
	messagesObject  = `{"content":[{"text":"Hi! My name is Claude.","type":"text"}],"id":"msg_013Zva2CMHLNnXjNJJKqJ2EF","model":"claude-3-7-sonnet-20250219","role":"assistant","stop_reason":"end_turn","stop_sequence":null,"type":"message","usage":{"input_tokens":2095,"output_tokens":503}}`
)

// embeddingsList is the reference's embeddings object with n embeddings in index order.
func embeddingsList(n int) string {
	var data []string
	for i := range n {
		data = append(data, fmt.Sprintf(`{"object":"embedding","embedding":[0.0023064255,-0.009327292,-0.0028842222],"index":%d}`, i))
	}
	return `{"object":"list","data":[` + strings.Join(data, ",") + `],"model":"text-embedding-ada-002","usage":{"prompt_tokens":8,"total_tokens":8}}`
}

// Whole streams as the engines write them: llama.cpp's /v1/responses (event lines, no
// sequence numbers, usage without details, no [DONE]:
// ggml-org/llama.cpp@00efb3e184262872916bf136b3df63c1822a19bd tools/server/server-task.cpp,
// to_json_oaicompat_resp and to_json_oaicompat_resp_stream) and vLLM's /v1/messages (usage
// with input_tokens in message_delta, a [DONE] after message_stop:
// vllm-project/vllm@82df3f491008e46124f7afb5008c789dc7432515 vllm/entrypoints/anthropic/serving.py).
const (
	llamaResponsesStream = "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"in_progress\"}}\n\n" +
		"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"delta\":\"Hi\"}\n\n" +
		"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"created_at\":1,\"status\":\"completed\",\"model\":\"m\",\"output\":[],\"usage\":{\"input_tokens\":9,\"output_tokens\":1,\"total_tokens\":10}}}\n\n"
	vllmMessagesStream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"chatcmpl-1\",\"content\":[],\"model\":\"m\",\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":7,\"output_tokens\":0}}}\n\n" +
		"event: content_block_start\ndata: {\"index\":0,\"type\":\"content_block_start\",\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"index\":0,\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n" +
		"event: content_block_stop\ndata: {\"index\":0,\"type\":\"content_block_stop\"}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\"},\"usage\":{\"input_tokens\":7,\"output_tokens\":1}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\ndata: [DONE]\n\n"
)
