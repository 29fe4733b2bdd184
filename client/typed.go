package client

import "github.com/llm-replay/replay/internal/jsoncur"

// typed.go walks one data payload of a typed event stream (the Responses and Messages APIs:
// each event a JSON object naming its "type") and a whole Responses or Messages answer,
// extracting only what timing, accounting and judgement need, as frame.go does for chat.
//
// Shapes, from the published references and the engines that serve these APIs:
//   - Responses (https://platform.openai.com/docs/api-reference/responses-streaming):
//     response.output_text.delta / response.function_call_arguments.delta /
//     response.reasoning_text.delta / response.refusal.delta carry a string "delta";
//     response.completed / response.incomplete / response.failed carry the whole "response"
//     (status, incomplete_details.reason, error {code, message}, output items, usage
//     {input_tokens, output_tokens, input_tokens_details.cached_tokens}); "error" events
//     carry code and message at the top level. vLLM ends a stream with response.completed
//     whatever the status, so an incomplete one is told by its response.status
//     (vllm-project/vllm@4d89a999c51e191a959a49e44cf7d6697f96cf6a
//     vllm/entrypoints/openai/responses/serving.py, responses_full_generator and
//     responses_stream_generator); llama.cpp streams a mid-stream error as chat's
//     {"error": {...}} with no type (ggml-org/llama.cpp@001d906a6d86e2490e394361e7cc6f478b100088
//     tools/server/server-context.cpp, handle_completions_impl).
//   - Messages (https://docs.anthropic.com/en/docs/build-with-claude/streaming):
//     message_start carries "message" with usage {input_tokens, cache_read_input_tokens,
//     cache_creation_input_tokens, output_tokens}; content_block_delta a "delta" object with
//     text (text_delta), partial_json (input_json_delta) or thinking (thinking_delta);
//     message_delta a delta with stop_reason and a top-level usage (output_tokens,
//     cumulative); message_stop ends it; ping is nothing; "error" carries
//     {"error": {"type", "message"}}. llama.cpp's error event data is its plain error object
//     ({"code", "message", "type"}, no "type": "error"), told apart by its "event: error"
//     line (same llama.cpp file).

// evType is what an event's "type" names, as far as judging needs.
type evType uint8

const (
	evOther          evType = iota
	evOutputDelta           // a Responses output delta: text, refusal
	evReasoningDelta        // a Responses reasoning delta: reasoning text or its summary
	evToolDelta             // response.function_call_arguments.delta
	evCompleted             // response.completed
	evIncomplete            // response.incomplete
	evFailed                // response.failed
	evError                 // error (both APIs)
	evMessageStart          // message_start
	evBlockDelta            // content_block_delta
	evMessageDelta          // message_delta
	evMessageStop           // message_stop
)

// of reports whether the event type is api's: the Responses API's response.* events, the
// Messages API's message_* and content_block_* ones; error is both's.
func (t evType) of(api apiKind) bool {
	switch {
	case t == evOther || t == evError:
		return true
	case t <= evFailed:
		return api == kindResponses
	}
	return api == kindMessages
}

// evTypeOf maps an event's type to its evType.
func evTypeOf(b []byte) evType {
	switch string(b) {
	case "response.output_text.delta", "response.refusal.delta":
		return evOutputDelta
	case "response.reasoning_text.delta", "response.reasoning_summary_text.delta":
		return evReasoningDelta
	case "response.function_call_arguments.delta":
		return evToolDelta
	case "response.completed":
		return evCompleted
	case "response.incomplete":
		return evIncomplete
	case "response.failed":
		return evFailed
	case "error":
		return evError
	case "message_start":
		return evMessageStart
	case "content_block_delta":
		return evBlockDelta
	case "message_delta":
		return evMessageDelta
	case "message_stop":
		return evMessageStop
	}
	return evOther
}

// tokens is usage as these APIs report it, each count -1 when absent or not an int32.
type tokens struct {
	has                                                      bool
	input, output, cacheRead, cacheCreate, cached, reasoning int64
}

var noTokens = tokens{input: -1, output: -1, cacheRead: -1, cacheCreate: -1, cached: -1, reasoning: -1}

// apiError is an error object's parts: the raw (escaped) message, an integer code (-1 none)
// and the class a named code or error type gives ("" none).
type apiError struct {
	present bool
	msg     []byte
	code    int64
	class   string
}

var noError = apiError{code: -1}

// event is what one typed payload (or a whole answer) tells us.
type event struct {
	typ evType
	// deltaText: "delta" is a non-empty string; blockText: "delta" is an object with a
	// non-empty text or partial_json; blockThinking: one with a non-empty thinking.
	deltaText, blockText, blockThinking bool
	// stop is a Messages stop_reason (delta's or the answer's) as a finish word; status and
	// reason the Responses status and incomplete_details.reason ("length" for the cap);
	// toolCall a function_call item among the response's output; output whether any output
	// item carried text or a call (for a whole answer).
	stop, status, reason string
	toolCall, output     bool
	usage                tokens
	err, top             apiError // the "error" object (top level or the response's); the top level's own code and message
}

// isError reports whether the event is an error: an error event, a failed response, or an
// error object (llama.cpp's untyped mid-stream error).
func (e *event) isError() bool {
	return e.typ == evError || e.typ == evFailed || e.err.present
}

// parseAnswer walks a whole non-streamed answer of api (responses or messages), one JSON
// object; ok is false when b does not start with one.
func parseAnswer(b []byte, api apiKind) (e event, ok bool) {
	c := jsoncur.New(b)
	if c.Peek() != '{' {
		return event{}, false
	}
	e = event{usage: noTokens, err: noError, top: noError}
	if api == kindResponses {
		e.responseMembers(&c)
	} else {
		e.messageObject(&c)
	}
	if c.Err() != nil {
		return event{}, false
	}
	return e, true
}

// parseEvent walks b, one JSON object; ok is false when b does not start with one.
func parseEvent(b []byte) (e event, ok bool) {
	c := jsoncur.New(b)
	if c.Peek() != '{' {
		return event{}, false
	}
	e = event{usage: noTokens, err: noError, top: noError}
	for more := c.Object(); more; more = c.NextMember() {
		switch string(key(&c)) {
		case "type": // the last one counts, as in a map decode
			e.typ = evOther
			if raw, esc, ok := stringOrSkip(&c); ok {
				e.typ = evTypeOf(c.Unquote(raw, esc))
			}
		case "delta":
			e.delta(&c)
		case "usage":
			e.usage = usageTokens(&c)
		case "message":
			e.message(&c)
		case "response":
			e.response(&c)
		case "error":
			e.err = errorOf(&c)
		case "code":
			e.top.code, e.top.class = codeOf(&c)
		default:
			c.Skip()
		}
	}
	if c.Err() != nil {
		return event{}, false
	}
	return e, true
}

// delta reads "delta": a Responses string, or a Messages object.
func (e *event) delta(c *jsoncur.Cursor) {
	switch c.Peek() {
	case '"':
		e.deltaText = nonEmptyString(c)
		return
	case '{':
	default:
		c.Skip()
		return
	}
	for more := c.Object(); more; more = c.NextMember() {
		switch string(key(c)) {
		case "text", "partial_json":
			e.blockText = nonEmptyString(c) || e.blockText
		case "thinking":
			e.blockThinking = nonEmptyString(c) || e.blockThinking
		case "stop_reason":
			e.stop = stopWord(c)
		default:
			c.Skip()
		}
	}
}

// message reads a top-level "message": the Messages API's message object (message_start)
// or an error event's message text.
func (e *event) message(c *jsoncur.Cursor) {
	switch c.Peek() {
	case '"':
		e.top.msg, _ = c.RawString()
		return
	case '{':
		e.messageObject(c)
	default:
		c.Skip()
	}
}

// messageObject reads a Messages API message (message_start's, or a whole answer): its
// usage, stop_reason and content blocks, and, for an answer that is an error object, its
// type and error.
func (e *event) messageObject(c *jsoncur.Cursor) {
	for more := c.Object(); more; more = c.NextMember() {
		switch string(key(c)) {
		case "type":
			if raw, esc, ok := stringOrSkip(c); ok && string(c.Unquote(raw, esc)) == "error" {
				e.typ = evError
			}
		case "error":
			e.err = errorOf(c)
		case "usage":
			e.usage = usageTokens(c)
		case "stop_reason":
			e.stop = stopWord(c)
		case "content":
			e.output = contentBlocks(c) || e.output
		default:
			c.Skip()
		}
	}
}
