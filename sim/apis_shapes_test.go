package sim

import "strings"

// The published shapes the tests hold the simulator's answers to. Each is the members of the
// SDK's type, required being those without a default:
//
//   - OpenAI: openai-python@e43b422412a9e96c9cc5192c61fffbe2d7e04836, src/openai/types/responses/
//     (response.py, response_usage.py, response_output_message.py, response_output_text.py,
//     response_function_tool_call.py, and each event's *_event.py), src/openai/types/
//     (create_embedding_response.py, embedding.py).
//   - Anthropic: anthropic-sdk-python@009b035305e0724ce108ebd796935f91711fc6e1,
//     src/anthropic/types/ (message.py, usage.py, message_delta_usage.py, raw_*_event.py,
//     text_block.py, tool_use_block.py, text_delta.py, input_json_delta.py,
//     shared/error_response.py).
var (
	responseShape = shape{
		required: []string{"id", "created_at", "model", "object", "output", "parallel_tool_calls", "tool_choice", "tools"},
		optional: []string{"error", "incomplete_details", "instructions", "metadata", "temperature", "top_p", "background",
			"completed_at", "conversation", "max_output_tokens", "max_tool_calls", "moderation", "previous_response_id",
			"prompt", "prompt_cache_key", "prompt_cache_options", "prompt_cache_retention", "reasoning",
			"safety_identifier", "service_tier", "status", "text", "top_logprobs", "truncation", "usage", "user"},
	}
	responseUsageShape = shape{required: []string{"input_tokens", "input_tokens_details", "output_tokens", "output_tokens_details", "total_tokens"}}
	inputDetailsShape  = shape{required: []string{"cache_write_tokens", "cached_tokens"}}
	outputDetailsShape = shape{required: []string{"reasoning_tokens"}}
	outputMessageShape = shape{required: []string{"id", "content", "role", "status", "type"}, optional: []string{"phase"}}
	outputTextShape    = shape{required: []string{"annotations", "text", "type"}, optional: []string{"logprobs"}}
	functionCallShape  = shape{required: []string{"arguments", "call_id", "name", "type"}, optional: []string{"id", "caller", "namespace", "status"}}

	// responsesEventShapes are the members of each streamed event's type.
	responsesEventShapes = map[string]shape{
		"response.created":                       {required: []string{"response", "sequence_number", "type"}},
		"response.in_progress":                   {required: []string{"response", "sequence_number", "type"}},
		"response.completed":                     {required: []string{"response", "sequence_number", "type"}},
		"response.incomplete":                    {required: []string{"response", "sequence_number", "type"}},
		"response.output_item.added":             {required: []string{"item", "output_index", "sequence_number", "type"}},
		"response.output_item.done":              {required: []string{"item", "output_index", "sequence_number", "type"}},
		"response.content_part.added":            {required: []string{"content_index", "item_id", "output_index", "part", "sequence_number", "type"}},
		"response.content_part.done":             {required: []string{"content_index", "item_id", "output_index", "part", "sequence_number", "type"}},
		"response.output_text.delta":             {required: []string{"content_index", "delta", "item_id", "logprobs", "output_index", "sequence_number", "type"}},
		"response.output_text.done":              {required: []string{"content_index", "item_id", "logprobs", "output_index", "sequence_number", "text", "type"}},
		"response.function_call_arguments.delta": {required: []string{"delta", "item_id", "output_index", "sequence_number", "type"}},
		"response.function_call_arguments.done":  {required: []string{"arguments", "item_id", "name", "output_index", "sequence_number", "type"}},
	}

	embeddingListShape = shape{required: []string{"data", "model", "object", "usage"}}
	embeddingShape     = shape{required: []string{"embedding", "index", "object"}}
	embeddingUsage     = shape{required: []string{"prompt_tokens", "total_tokens"}}

	messageShape = shape{
		required: []string{"id", "content", "model", "role", "type", "usage"},
		optional: []string{"container", "stop_details", "stop_reason", "stop_sequence"},
	}
	anthropicUsageShape = shape{
		required: []string{"input_tokens", "output_tokens"},
		optional: []string{"cache_creation", "cache_creation_input_tokens", "cache_read_input_tokens", "inference_geo",
			"output_tokens_details", "server_tool_use", "service_tier"},
	}
	messageDeltaUsageShape = shape{
		required: []string{"output_tokens"},
		optional: []string{"cache_creation_input_tokens", "cache_read_input_tokens", "input_tokens", "output_tokens_details", "server_tool_use"},
	}
	textBlockShape    = shape{required: []string{"text", "type"}, optional: []string{"citations"}}
	toolUseBlockShape = shape{required: []string{"id", "input", "name", "type"}, optional: []string{"caller"}}

	// messagesEventShapes are the members of each streamed event's type (ping is the
	// streaming guide's {"type": "ping"}).
	messagesEventShapes = map[string]shape{
		"message_start":       {required: []string{"message", "type"}},
		"content_block_start": {required: []string{"content_block", "index", "type"}},
		"ping":                {required: []string{"type"}},
		"content_block_delta": {required: []string{"delta", "index", "type"}},
		"content_block_stop":  {required: []string{"index", "type"}},
		"message_delta":       {required: []string{"delta", "type", "usage"}},
		"message_stop":        {required: []string{"type"}},
	}
	messageDeltaShape = shape{optional: []string{"container", "stop_details", "stop_reason", "stop_sequence"}}
	anthropicErrShape = shape{required: []string{"error", "type"}, optional: []string{"request_id"}}
)

// anthropicTextStream is a text answer's stream as anthropic-sdk-python's own tests hold it
// (anthropic-sdk-python@009b035305e0724ce108ebd796935f91711fc6e1:
// tests/lib/streaming/fixtures/basic_response.txt), the order of Anthropic's streaming guide
// (https://docs.anthropic.com/en/docs/build-with-claude/streaming, "Basic streaming request").
const anthropicTextStream = `event: message_start
data: {"type":"message_start","message":{"id":"msg_4QpJur2dWWDjF6C758FbBw5vm12BaVipnK","type":"message","role":"assistant","content":[],"model":"claude-3-opus-latest","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":11,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" there"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"!"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":6}}

event: message_stop
data: {"type":"message_stop"}
`

// anthropicToolUseBlock is the tool_use block of the same tests' tool_use_response.txt: its
// start (input {}), its input_json_delta deltas, its stop.
const anthropicToolUseBlock = `event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01NRLabsLyVHZPKxbKvkfSMn","name":"get_weather","caller":{"type":"direct"},"input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"locati"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}
`

// responsesTextStream is the streamed text answer of OpenAI's API reference for POST
// /responses (openai-python@e43b422412a9e96c9cc5192c61fffbe2d7e04836:
// api_reference/openapi.transformed.yml, the "Streaming" example), its long response objects
// cut to their first members and its "..." (more deltas) kept. The example predates
// sequence_number and logprobs, which the event types now require (the shapes above).
const responsesTextStream = `event: response.created
data: {"type":"response.created","response":{"id":"resp_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654","object":"response","status":"in_progress","output":[]}}

event: response.in_progress
data: {"type":"response.in_progress","response":{"id":"resp_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654","object":"response","status":"in_progress","output":[]}}

event: response.output_item.added
data: {"type":"response.output_item.added","output_index":0,"item":{"id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","type":"message","status":"in_progress","role":"assistant","content":[]}}

event: response.content_part.added
data: {"type":"response.content_part.added","item_id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","output_index":0,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}

event: response.output_text.delta
data: {"type":"response.output_text.delta","item_id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","output_index":0,"content_index":0,"delta":"Hi"}

...

event: response.output_text.done
data: {"type":"response.output_text.done","item_id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","output_index":0,"content_index":0,"text":"Hi there! How can I assist you today?"}

event: response.content_part.done
data: {"type":"response.content_part.done","item_id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","output_index":0,"content_index":0,"part":{"type":"output_text","text":"Hi there! How can I assist you today?","annotations":[]}}

event: response.output_item.done
data: {"type":"response.output_item.done","output_index":0,"item":{"id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hi there! How can I assist you today?","annotations":[]}]}}

event: response.completed
data: {"type":"response.completed","response":{"id":"resp_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654","object":"response","status":"completed","output":[{"id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hi there! How can I assist you today?","annotations":[]}]}],"usage":{"input_tokens":37,"output_tokens":11,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":48}}}
`

// eventOrder is the names of a stream's events (its `event:` lines), each run of one name
// (the deltas) counted once, so that streams of different lengths compare.
func eventOrder(stream string) []string {
	var out []string
	for _, line := range strings.Split(stream, "\n") {
		name, ok := strings.CutPrefix(line, "event: ")
		if ok && (len(out) == 0 || out[len(out)-1] != name) {
			out = append(out, name)
		}
	}
	return out
}

// collapse is names with each run of one name counted once.
func collapse(names []string) []string {
	var out []string
	for _, n := range names {
		if len(out) == 0 || out[len(out)-1] != n {
			out = append(out, n)
		}
	}
	return out
}
