package client

import "github.com/llm-replay/replay/internal/jsoncur"

// typed_values.go reads the values typed.go's events and answers share: a Responses response
// object, usage, error objects and codes, stop reasons, output items and content blocks.

// response reads a Responses response object (an event's "response", or a whole answer).
func (e *event) response(c *jsoncur.Cursor) {
	if c.Peek() != '{' {
		c.Skip()
		return
	}
	e.responseMembers(c)
}

// responseMembers reads the members of a response object (the cursor inside it).
func (e *event) responseMembers(c *jsoncur.Cursor) {
	for more := c.Object(); more; more = c.NextMember() {
		switch string(key(c)) {
		case "status":
			if raw, esc, ok := stringOrSkip(c); ok {
				e.status = reasonWord(c.Unquote(raw, esc))
			}
		case "incomplete_details":
			e.reason = incompleteReason(c)
		case "usage":
			e.usage = usageTokens(c)
		case "error":
			e.err = errorOf(c)
		case "output":
			e.outputItems(c)
		default:
			c.Skip()
		}
	}
}

// outputItems reads a response's output array: a function_call item is a tool call, and an
// item with text (a message's output_text or refusal, reasoning text) or a call is output.
func (e *event) outputItems(c *jsoncur.Cursor) {
	if c.Peek() != '[' {
		c.Skip()
		return
	}
	for more := c.Array(); more; more = c.NextElem() {
		if c.Peek() != '{' {
			c.Skip()
			continue
		}
		var call, text bool
		for more := c.Object(); more; more = c.NextMember() {
			switch string(key(c)) {
			case "type":
				raw, esc, ok := stringOrSkip(c)
				call = ok && string(c.Unquote(raw, esc)) == "function_call"
			case "content", "summary":
				text = contentBlocks(c) || text
			default:
				c.Skip()
			}
		}
		e.toolCall = e.toolCall || call
		e.output = e.output || call || text
	}
}

// contentBlocks reads an array of content parts (output_text, refusal, reasoning_text,
// summary_text; Anthropic's text, thinking, tool_use) and reports whether one carries output:
// a non-empty text, refusal or thinking, or a tool_use block.
func contentBlocks(c *jsoncur.Cursor) bool {
	if c.Peek() != '[' {
		c.Skip()
		return false
	}
	out := false
	for more := c.Array(); more; more = c.NextElem() {
		if c.Peek() != '{' {
			c.Skip()
			continue
		}
		for more := c.Object(); more; more = c.NextMember() {
			switch string(key(c)) {
			case "text", "refusal", "thinking":
				out = nonEmptyString(c) || out
			case "type":
				raw, esc, ok := stringOrSkip(c)
				out = (ok && string(c.Unquote(raw, esc)) == "tool_use") || out
			default:
				c.Skip()
			}
		}
	}
	return out
}

// incompleteReason reads incomplete_details: "length" for the output cap (max_output_tokens,
// and max_tokens as the API reference's own example of response.incomplete writes it), the
// server's word otherwise, "" for null or no reason.
func incompleteReason(c *jsoncur.Cursor) string {
	if c.Peek() != '{' {
		c.Skip()
		return ""
	}
	reason := ""
	for more := c.Object(); more; more = c.NextMember() {
		if string(key(c)) != "reason" {
			c.Skip()
			continue
		}
		raw, esc, ok := stringOrSkip(c)
		switch w := c.Unquote(raw, esc); {
		case !ok || len(w) == 0:
			reason = ""
		case string(w) == "max_output_tokens" || string(w) == "max_tokens":
			reason = "length"
		default:
			reason = reasonWord(w)
		}
	}
	return reason
}

// stopWord reads an Anthropic stop_reason as a finish word: end_turn and stop_sequence are
// "stop", tool_use "tool_calls", max_tokens "length", and so is
// model_context_window_exceeded (a server limit cut the answer, which is what chat's length
// short of max_tokens means); any other word as it is; "" for null.
func stopWord(c *jsoncur.Cursor) string {
	raw, esc, ok := stringOrSkip(c)
	if !ok || len(raw) == 0 {
		return ""
	}
	switch w := c.Unquote(raw, esc); string(w) {
	case "end_turn", "stop_sequence":
		return "stop"
	case "tool_use":
		return "tool_calls"
	case "max_tokens", "model_context_window_exceeded":
		return "length"
	default:
		return reasonWord(w)
	}
}

// usageTokens reads a usage object of the Responses or Messages API.
func usageTokens(c *jsoncur.Cursor) tokens {
	if c.Peek() != '{' {
		c.Skip()
		return noTokens
	}
	u := noTokens
	u.has = true
	for more := c.Object(); more; more = c.NextMember() {
		switch string(key(c)) {
		case "input_tokens":
			u.input = int32OrSkip(c)
		case "output_tokens":
			u.output = int32OrSkip(c)
		case "cache_read_input_tokens":
			u.cacheRead = int32OrSkip(c)
		case "cache_creation_input_tokens":
			u.cacheCreate = int32OrSkip(c)
		case "input_tokens_details":
			u.cached = detailCount(c, "cached_tokens")
		case "output_tokens_details":
			u.reasoning = detailCount(c, "reasoning_tokens")
		default:
			c.Skip()
		}
	}
	return u
}

// errorOf reads an "error" value: an object with message, code and type, or a bare string;
// null (a successful response's) is no error.
func errorOf(c *jsoncur.Cursor) apiError {
	e := noError
	switch c.Peek() {
	case '"':
		e.msg, _ = c.RawString()
		e.present = len(e.msg) > 0
		return e
	case '{':
	default:
		c.Skip()
		return e
	}
	e.present = true
	var typeClass string
	for more := c.Object(); more; more = c.NextMember() {
		switch string(key(c)) {
		case "message":
			e.msg, _, _ = stringOrSkip(c)
		case "code":
			e.code, e.class = codeOf(c)
		case "type":
			if raw, esc, ok := stringOrSkip(c); ok {
				typeClass = namedClass(c.Unquote(raw, esc))
			}
		default:
			c.Skip()
		}
	}
	if e.class == "" {
		e.class = typeClass
	}
	return e
}

// codeOf reads a "code": an integer, or a name and the class it gives.
func codeOf(c *jsoncur.Cursor) (code int64, class string) {
	if c.Peek() == '"' {
		raw, esc := c.RawString()
		return -1, namedClass(c.Unquote(raw, esc))
	}
	return int32OrSkip(c), ""
}

// namedClass is the error class of a named error code or type: OpenAI's Responses error
// codes (https://platform.openai.com/docs/api-reference/responses/object, error.code),
// Anthropic's error types (https://docs.anthropic.com/en/api/errors: overloaded_error is its
// HTTP 529, a 5xx like any server overload), llama.cpp's error types
// (tools/server/server-common.cpp, format_error_response) and vLLM's exception names; ""
// for a name none of them uses.
func namedClass(b []byte) string {
	switch string(b) {
	case "rate_limit_exceeded", "rate_limit_error", "RateLimitError":
		return ErrHTTP429
	case "server_error", "api_error", "overloaded_error", "internal_error", "timeout_error",
		"vector_store_timeout", "unavailable_error", "not_supported_error", "InternalServerError",
		"ServiceUnavailableError":
		return ErrHTTP5xx
	case "invalid_request_error", "invalid_prompt", "authentication_error", "permission_error",
		"not_found_error", "request_too_large", "billing_error", "exceed_context_size_error",
		"BadRequestError", "NotFoundError":
		return ErrHTTP4xx
	}
	return ""
}

// class is the error class the error's parts give: an HTTP-like integer code first, then a
// named code or type, then the top level's code; stream_broken when none says.
func (e *event) class() string {
	for _, a := range [...]*apiError{&e.err, &e.top} {
		if a.code >= 400 && a.code <= 599 {
			return statusClass(int(a.code))
		}
		if a.class != "" {
			return a.class
		}
	}
	return ErrStreamBroken
}

// errMessage is the error's message: the error object's, else the top level's.
func (e *event) errMessage() []byte {
	if len(e.err.msg) > 0 {
		return e.err.msg
	}
	return e.top.msg
}
