package client

import "github.com/llm-replay/replay/internal/jsoncur"

// frame is what one SSE data payload tells us. Only the fields the timing and accounting need
// are extracted; everything else is skipped without decoding.
//
// Semantics (the fuzz test holds the scanner to them against encoding/json): for a repeated
// key the last occurrence wins, as in a map decode; keys are compared exactly.
type frame struct {
	// answer: some choice in "choices" has a non-empty string in delta.content or text, or a
	// non-empty delta.tool_calls; thinking: some choice has a non-empty
	// delta.reasoning_content or delta.reasoning (the reasoning parsers' split: vLLM and
	// SGLang's reasoning_content, vLLM's later reasoning, llama.cpp's reasoning_content under
	// --reasoning-format). The chunk carries content when either is set.
	answer, thinking bool
	// Think tags in a choice's text or delta.content, for a server that does not split
	// thinking out (think.go): opens, "<think>" appears; closes, "</think>" appears; after,
	// some non-space text follows the last "</think>".
	opens, closes, after bool
	// finished: some choice has a non-empty string finish_reason; length: some choice's
	// finish_reason is "length" (the answer hit max_tokens, or a server limit: see ErrShort);
	// reason: "length" when one is, else the last choice's finish_reason (reasonWord).
	finished bool
	length   bool
	reason   string
	// hasUsage: "usage" is an object. Counts are -1 when absent or not an int32.
	hasUsage   bool
	prompt     int64
	completion int64
	cached     int64
	// reasoning is usage.completion_tokens_details.reasoning_tokens (OpenAI's usage object,
	// https://platform.openai.com/docs/api-reference/chat/object), -1 when absent.
	reasoning int64
	// isError: "error" is an object or a non-empty string, or top-level "object" is "error"
	// (vLLM's error body). errMsg is the raw (still escaped) JSON string of the message, nil
	// when there is none; errCode the integer code, -1 when absent.
	isError bool
	errMsg  []byte
	errCode int64
}

var noFrame = frame{prompt: -1, completion: -1, cached: -1, reasoning: -1, errCode: -1}

// parseFrame extracts a frame from one JSON object. ok is false when b does not start with a
// valid JSON object (checked as strictly as encoding/json does); bytes after the object are
// ignored, as a streaming decoder would leave them for the next value.
func parseFrame(b []byte) (f frame, ok bool) {
	c := jsoncur.New(b)
	f = noFrame
	var (
		errObj     bool   // "error" present as object or non-empty string
		errMsg     []byte // message from "error"
		errCode    int64  = -1
		objIsError bool   // top-level "object":"error"
		topMsg     []byte // top-level "message"
		topCode    int64  = -1
	)
	if c.Peek() != '{' {
		return noFrame, false
	}
	for more := c.Object(); more; more = c.NextMember() {
		switch string(key(&c)) {
		case "choices":
			f.choices(&c)
		case "usage":
			f.usage(&c)
		case "error":
			errObj, errMsg, errCode = errorValue(&c)
		case "object":
			raw, escaped, isStr := stringOrSkip(&c)
			objIsError = isStr && string(c.Unquote(raw, escaped)) == "error"
		case "message":
			topMsg, _, _ = stringOrSkip(&c)
		case "code":
			topCode = int32OrSkip(&c)
		default:
			c.Skip()
		}
	}
	if c.Err() != nil {
		return noFrame, false
	}
	switch {
	case errObj:
		f.isError, f.errMsg, f.errCode = true, errMsg, errCode
	case objIsError:
		f.isError, f.errMsg, f.errCode = true, topMsg, topCode
	}
	return f, true
}

// content reports whether the frame carries output of either kind.
func (f *frame) content() bool { return f.answer || f.thinking }

// choices reads the "choices" value: an array of choice objects. Each member's last
// occurrence wins, as in a map decode.
func (f *frame) choices(c *jsoncur.Cursor) {
	f.answer, f.thinking, f.opens, f.closes, f.after = false, false, false, false, false
	f.finished, f.length, f.reason = false, false, ""
	if c.Peek() != '[' {
		c.Skip()
		return
	}
	for more := c.Array(); more; more = c.NextElem() {
		var ch choiceContent
		fin, ln, rs := ch.read(c)
		f.answer = f.answer || ch.answer
		f.thinking = f.thinking || ch.thinking
		f.opens, f.closes, f.after = f.opens || ch.opens, f.closes || ch.closes, f.after || ch.after
		f.finished = f.finished || fin
		f.length = f.length || ln
		if rs != "" && f.reason != "length" {
			f.reason = rs
		}
	}
}

// choiceContent is what one choice carries: answer or thinking, and its text's think tags.
type choiceContent struct {
	answer, thinking     bool
	opens, closes, after bool
}

// read reads one element of "choices"; anything but an object carries nothing.
func (ch *choiceContent) read(c *jsoncur.Cursor) (finished, length bool, reason string) {
	if c.Peek() != '{' {
		c.Skip()
		return false, false, ""
	}
	var text, delta choiceContent
	for more := c.Object(); more; more = c.NextMember() {
		switch string(key(c)) {
		case "text":
			text = choiceContent{}
			text.answer, text.opens, text.closes, text.after = textTags(c)
		case "delta":
			delta = deltaContent(c)
		case "finish_reason":
			finished, length, reason = finishReason(c)
		default:
			c.Skip()
		}
	}
	*ch = choiceContent{answer: text.answer || delta.answer, thinking: delta.thinking,
		opens: text.opens || delta.opens, closes: text.closes || delta.closes, after: text.after || delta.after}
	return finished, length, reason
}

// finishReason reads a choice's finish_reason: finished when it is a non-empty string, length
// when that string is "length", reason the word (reasonWord). The comparison is on the raw
// bytes unless the string has escapes (rare), which decode into the cursor's scratch: no
// allocation for the usual words.
func finishReason(c *jsoncur.Cursor) (finished, length bool, reason string) {
	raw, escaped, isStr := stringOrSkip(c)
	if !isStr || len(raw) == 0 {
		return false, false, ""
	}
	text := c.Unquote(raw, escaped)
	return true, string(text) == "length", reasonWord(text)
}

// maxReason bounds a finish reason kept from a server's bytes.
const maxReason = 64

// reasonWord is a finish reason as Response.FinishReason keeps it: the usual words as
// constants (no allocation), anything else copied, made valid UTF-8 and bounded.
func reasonWord(b []byte) string {
	switch string(b) {
	case "stop":
		return "stop"
	case "length":
		return "length"
	case "tool_calls":
		return "tool_calls"
	case "content_filter":
		return "content_filter"
	case "function_call":
		return "function_call"
	}
	return truncateTo(string(b), maxReason)
}

// deltaContent reads a chat choice's "delta": text (content), thinking (reasoning_content or
// reasoning), or a piece of a tool call (servers stream a call's name and arguments as
// tool_calls deltas, each one generated tokens like text), which is answer.
func deltaContent(c *jsoncur.Cursor) choiceContent {
	var ch choiceContent
	if c.Peek() != '{' {
		c.Skip()
		return ch
	}
	var content, reasoningContent, reasoning, toolCalls bool
	for more := c.Object(); more; more = c.NextMember() {
		switch string(key(c)) {
		case "content":
			content, ch.opens, ch.closes, ch.after = textTags(c)
		case "reasoning_content":
			reasoningContent = nonEmptyString(c)
		case "reasoning":
			reasoning = nonEmptyString(c)
		case "tool_calls":
			toolCalls = nonEmptyArray(c)
		default:
			c.Skip()
		}
	}
	ch.answer, ch.thinking = content || toolCalls, reasoningContent || reasoning
	return ch
}

// nonEmptyArray reports whether the value is an array with at least one element.
func nonEmptyArray(c *jsoncur.Cursor) bool {
	if c.Peek() != '[' {
		c.Skip()
		return false
	}
	n := 0
	for more := c.Array(); more; more = c.NextElem() {
		c.Skip()
		n++
	}
	return n > 0
}

// usage reads the "usage" value; null or anything but an object means no usage.
func (f *frame) usage(c *jsoncur.Cursor) {
	f.hasUsage, f.prompt, f.completion, f.cached, f.reasoning = false, -1, -1, -1, -1
	if c.Peek() != '{' {
		c.Skip()
		return
	}
	f.hasUsage = true
	for more := c.Object(); more; more = c.NextMember() {
		switch string(key(c)) {
		case "prompt_tokens":
			f.prompt = int32OrSkip(c)
		case "completion_tokens":
			f.completion = int32OrSkip(c)
		case "prompt_tokens_details":
			f.cached = detailCount(c, "cached_tokens")
		case "completion_tokens_details":
			f.reasoning = detailCount(c, "reasoning_tokens")
		default:
			c.Skip()
		}
	}
}

// detailCount reads a usage details object (prompt_tokens_details, completion_tokens_details,
// input_tokens_details, output_tokens_details) and returns its member name, -1 if absent.
func detailCount(c *jsoncur.Cursor, name string) int64 {
	if c.Peek() != '{' {
		c.Skip()
		return -1
	}
	n := int64(-1)
	for more := c.Object(); more; more = c.NextMember() {
		if string(key(c)) == name {
			n = int32OrSkip(c)
		} else {
			c.Skip()
		}
	}
	return n
}

// errorValue reads the "error" value: an object with message and code, or a bare string.
func errorValue(c *jsoncur.Cursor) (present bool, msg []byte, code int64) {
	switch c.Peek() {
	case '"':
		raw, _ := c.RawString()
		return len(raw) > 0, raw, -1
	case '{':
	default:
		c.Skip()
		return false, nil, -1
	}
	code = -1
	for more := c.Object(); more; more = c.NextMember() {
		switch string(key(c)) {
		case "message":
			msg, _, _ = stringOrSkip(c)
		case "code":
			code = int32OrSkip(c)
		default:
			c.Skip()
		}
	}
	return true, msg, code
}

// The value reads the frame walker shares: each reads one value of any kind and keeps it only
// when it has the type wanted, as a map decode followed by a type switch would.

// key reads a member's key as text; an escaped key (rare) is decoded into the cursor's scratch.
func key(c *jsoncur.Cursor) []byte { return c.Unquote(c.Key()) }

// nonEmptyString reports whether the value is a non-empty string. A raw JSON string is
// non-empty exactly when its decoded form is.
func nonEmptyString(c *jsoncur.Cursor) bool {
	raw, _, isStr := stringOrSkip(c)
	return isStr && len(raw) > 0
}

// stringOrSkip returns the value's raw bytes when it is a string.
func stringOrSkip(c *jsoncur.Cursor) (raw []byte, escaped, isString bool) {
	if c.Peek() != '"' {
		c.Skip()
		return nil, false, false
	}
	raw, escaped = c.RawString()
	return raw, escaped, true
}

// int32OrSkip returns the value when it is an integer literal (no fraction or exponent) within
// int32, else -1.
func int32OrSkip(c *jsoncur.Cursor) int64 {
	if p := c.Peek(); p != '-' && (p < '0' || p > '9') {
		c.Skip()
		return -1
	}
	if v, ok := c.Int64(); ok && v >= -1<<31 && v <= 1<<31-1 {
		return v
	}
	return -1
}

// decodeRaw turns a raw JSON string body into its text, as encoding/json decodes it.
func decodeRaw(raw []byte) string { return string(jsoncur.AppendUnquoted(nil, raw)) }
