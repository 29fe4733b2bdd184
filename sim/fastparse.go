package sim

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/llm-replay/replay/internal/jsoncur"
)

// fastParse reads the common shapes of a request body without reflection. It answers (ok)
// only when it is sure encoding/json would decode the body the same way: valid JSON (the
// cursor checks every byte as strictly as encoding/json), an object, known fields spelled
// exactly and given once, with plain types (strings, integer limits, a text or id prompt,
// numbers or null for the sampling fields, the usual shapes of stop, tools, tool_choice and
// response_format). Anything else returns ok=false for slowParse, which also words every
// syntax error and every option of the wrong kind. It keeps no text of the options, so they
// cost it no allocation; and so a chat request whose answer is built from a schema (a forced
// tool call, response_format json_schema) goes to slowParse too, which keeps what the answer
// needs.
func fastParse(body []byte, chat bool, defaultMaxTokens int) (r Request, err error, ok bool) {
	c := jsoncur.New(body)
	if c.Peek() != '{' {
		return Request{}, nil, false
	}
	r.Chat = chat
	var f topFields
	for more := c.Object(); more; more = c.NextMember() {
		if !f.member(&c, chat, &r) {
			return Request{}, nil, false
		}
	}
	if c.End() != nil || chat && f.needsSchema() {
		return Request{}, nil, false
	}
	if err := f.apply(defaultMaxTokens, &r); err != nil {
		return Request{}, err, true
	}
	if chat {
		if !f.messagesSet || len(r.Messages) == 0 {
			return Request{}, errNoMessages, true
		}
		if f.format == formatJSONObject {
			r.Content = jsonObjectContent
		}
		if f.tools {
			r.Tools = append(json.RawMessage(nil), f.toolsRaw...)
		}
		return r, nil, true
	}
	if !f.promptSet {
		return Request{}, nil, false // let slowParse word the error
	}
	if r.HasIDs {
		if err := checkIDs(r.PromptIDs); err != nil {
			return Request{}, promptError(err), true
		}
	}
	return r, nil, true
}

// needsSchema reports a chat request whose answer is built from a schema it carries: a forced
// call of one of its tools, or response_format json_schema.
func (f *topFields) needsSchema() bool {
	return f.tools && f.toolChoice == toolChoiceForced || f.format == formatJSONSchema
}

// topFields is what the top-level walk has seen so far.
type topFields struct {
	scalars
	seen                   uint32
	promptSet, messagesSet bool
	// toolsRaw is the tools list's bytes in the body, which is reused after the parse:
	// fastParse copies them into Request.Tools.
	toolsRaw []byte
}

// member reads one top-level member into r; false gives up.
func (f *topFields) member(c *jsoncur.Cursor, chat bool, r *Request) bool {
	key := c.Unquote(c.Key())
	bit, known := topKeys[string(key)]
	if !known {
		if foldsToKnown(key, topKeys) {
			return false
		}
		c.Skip()
		return true
	}
	if f.seen&bit != 0 {
		return false // duplicates merge in encoding/json; leave them to it
	}
	f.seen |= bit
	var ok bool
	switch string(key) {
	case "model":
		r.Model, ok = text(c)
	case "messages":
		if !chat {
			return false
		}
		f.messagesSet = true
		r.Messages, ok = messages(c)
	case "prompt":
		if chat {
			c.Skip()
			return true
		}
		f.promptSet = true
		ok = promptValue(c, r)
	case "max_tokens":
		f.maxTokens, ok = intOpt(c)
	case "max_completion_tokens":
		f.maxCompletionTokens, ok = intOpt(c)
	case "min_tokens":
		f.minTokens, ok = intOpt(c)
	case "thinking_token_budget":
		f.thinking, ok = intOpt(c)
	case "priority":
		f.priority, ok = intOpt(c)
	case "n":
		f.n, ok = intOpt(c)
	case "ignore_eos":
		r.IgnoreEOS, ok = boolean(c)
	case "stream":
		r.Stream, ok = boolean(c)
	case "stream_options":
		ok = streamOptions(c, r)
	default:
		ok = f.option(c, string(key))
	}
	return ok
}

// option reads one of the fields that change only cost or validity (see scalars).
func (f *topFields) option(c *jsoncur.Cursor, key string) (ok bool) {
	switch key {
	case "temperature":
		f.temperature, ok = floatOpt(c)
	case "top_p":
		f.topP, ok = floatOpt(c)
	case "presence_penalty":
		f.presencePenalty, ok = floatOpt(c)
	case "frequency_penalty":
		f.frequencyPenalty, ok = floatOpt(c)
	case "seed":
		_, ok = intOpt(c)
	case "top_logprobs":
		f.topLogprobs, ok = intOpt(c)
	case "logprobs":
		f.logprobs, ok = logprobsOpt(c)
	case "stop":
		f.stops, ok = stops(c)
	case "tools":
		// The list is prompt text to a chat template (Config.ChatCounter renders it): its
		// bytes are kept, the one option that costs a copy.
		raw, start := c.Rest(), c.Offset()
		f.tools, ok = nonEmptyList(c)
		if f.tools && ok {
			f.toolsRaw = raw[:c.Offset()-start]
		}
	case "tool_choice":
		f.toolChoice, ok = toolChoice(c), true
	case "response_format":
		f.format, ok = responseFormat(c)
	default: // the guided-decoding fields
		f.guided = f.guided || c.Peek() != 'n'
		c.Skip()
		ok = true
	}
	return ok
}

var topKeys = map[string]uint32{
	"model": 1 << 0, "messages": 1 << 1, "prompt": 1 << 2, "max_tokens": 1 << 3,
	"max_completion_tokens": 1 << 4, "min_tokens": 1 << 5, "n": 1 << 6, "ignore_eos": 1 << 7,
	"stream": 1 << 8, "stream_options": 1 << 9,
	"temperature": 1 << 10, "top_p": 1 << 11, "presence_penalty": 1 << 12,
	"frequency_penalty": 1 << 13, "seed": 1 << 14, "logprobs": 1 << 15, "top_logprobs": 1 << 16,
	"stop": 1 << 17, "tools": 1 << 18, "tool_choice": 1 << 19, "response_format": 1 << 20,
	"guided_json": 1 << 21, "guided_regex": 1 << 22, "guided_choice": 1 << 23,
	"guided_grammar": 1 << 24, "structured_outputs": 1 << 25, "thinking_token_budget": 1 << 26,
	"priority": 1 << 27,
}

var messageKeys = map[string]uint32{"role": 1, "name": 2, "content": 4}

// toolMessageKeys are the message fields of tool use, read by slowParse only.
var toolMessageKeys = map[string]uint32{"tool_calls": 1, "tool_call_id": 2}

var streamOptionKeys = map[string]uint32{"include_usage": 1}

var responseFormatKeys = map[string]uint32{"type": 1}

// foldsToKnown reports whether key could match a known field under encoding/json's
// case-insensitive matching (non-ASCII keys are assumed to, to stay safe).
func foldsToKnown(key []byte, known map[string]uint32) bool {
	for i := 0; i < len(key); i++ {
		if key[i] >= utf8.RuneSelf {
			return true
		}
	}
	for k := range known {
		if len(k) == len(key) && bytes.EqualFold([]byte(k), key) {
			return true
		}
	}
	return false
}

// text reads a string value as encoding/json decodes it.
func text(c *jsoncur.Cursor) (string, bool) {
	if c.Peek() != '"' {
		return "", false
	}
	return string(c.Text()), true
}

// intOpt reads an integer literal within int, which is what encoding/json puts in an *int, or
// null, which leaves it unset.
func intOpt(c *jsoncur.Cursor) (opt[int], bool) {
	if c.Peek() == 'n' {
		c.Null()
		return opt[int]{}, true
	}
	v, ok := integer(c)
	return opt[int]{v, true}, ok
}

func integer(c *jsoncur.Cursor) (int, bool) {
	if p := c.Peek(); p != '-' && (p < '0' || p > '9') {
		return 0, false
	}
	v, ok := c.Int64()
	return int(v), ok && v >= math.MinInt && v <= math.MaxInt
}

// floatOpt reads a number as encoding/json puts it in a *float64 (strconv.ParseFloat of its
// text, refused out of range), or null.
func floatOpt(c *jsoncur.Cursor) (opt[float64], bool) {
	switch p := c.Peek(); {
	case p == 'n':
		c.Null()
		return opt[float64]{}, true
	case p != '-' && (p < '0' || p > '9'):
		return opt[float64]{}, false
	}
	text := c.Number()
	v, err := strconv.ParseFloat(string(text), 64) // a short number's text stays on the stack
	return opt[float64]{v, true}, text != nil && err == nil
}

// logprobsOpt reads logprobs: true or false (chat), a count (completions), or null.
func logprobsOpt(c *jsoncur.Cursor) (opt[int], bool) {
	if p := c.Peek(); p == 't' || p == 'f' {
		c.Bool()
		return opt[int]{}, true
	}
	return intOpt(c)
}

// stops reads stop as a string, a list of strings or null, and counts the strings; the strings
// themselves are never kept (see Request.Stops).
func stops(c *jsoncur.Cursor) (int, bool) {
	switch c.Peek() {
	case 'n':
		c.Null()
		return 0, true
	case '"':
		c.RawString()
		return 1, true
	case '[':
	default:
		return 0, false
	}
	n := 0
	for more := c.Array(); more; more = c.NextElem() {
		if c.Peek() != '"' {
			return 0, false
		}
		c.RawString()
		n++
	}
	return n, true
}

// nonEmptyList reads a list (of anything) or null and reports whether it has an element.
func nonEmptyList(c *jsoncur.Cursor) (nonEmpty, ok bool) {
	switch c.Peek() {
	case 'n':
		c.Null()
		return false, true
	case '[':
	default:
		return false, false
	}
	for more := c.Array(); more; more = c.NextElem() {
		c.Skip()
		nonEmpty = true
	}
	return nonEmpty, true
}

// toolChoice reads any value as tool_choice, as toolChoiceOf does.
func toolChoice(c *jsoncur.Cursor) toolChoiceKind {
	switch c.Peek() {
	case '"':
		switch string(c.Text()) {
		case "none":
			return toolChoiceNone
		case "required":
			return toolChoiceForced
		}
		return toolChoiceAuto
	case '{':
		c.Skip()
		return toolChoiceForced
	}
	c.Skip()
	return toolChoiceAuto
}

// responseFormat reads {"type": ...} (other members skipped) or null. A type other than the
// known ones goes to slowParse, which words the error.
func responseFormat(c *jsoncur.Cursor) (formatKind, bool) {
	switch c.Peek() {
	case 'n':
		c.Null()
		return formatNone, true
	case '{':
	default:
		return 0, false
	}
	kind := formatNoType
	for more := c.Object(); more; more = c.NextMember() {
		key := c.Unquote(c.Key())
		if string(key) != "type" {
			if foldsToKnown(key, responseFormatKeys) {
				return 0, false
			}
			c.Skip()
			continue
		}
		if kind != formatNoType || c.Peek() != '"' {
			return 0, false // a duplicate, or a type that is not a string
		}
		k, known := formatKinds[string(c.Text())]
		if !known {
			return 0, false
		}
		kind = k
	}
	return kind, true
}

func boolean(c *jsoncur.Cursor) (bool, bool) {
	if p := c.Peek(); p != 't' && p != 'f' {
		return false, false
	}
	return c.Bool(), true
}

// messages reads a list of {"role","name","content"} objects with string values.
func messages(c *jsoncur.Cursor) ([]Message, bool) {
	if c.Peek() != '[' {
		return nil, false
	}
	msgs := make([]Message, 0, 4)
	for more := c.Array(); more; more = c.NextElem() {
		m, ok := message(c)
		if !ok {
			return nil, false
		}
		msgs = append(msgs, m)
	}
	return msgs, true
}

func message(c *jsoncur.Cursor) (m Message, ok bool) {
	if c.Peek() != '{' {
		return m, false
	}
	var seen uint32
	for more := c.Object(); more; more = c.NextMember() {
		key := c.Unquote(c.Key())
		bit, known := messageKeys[string(key)]
		if !known {
			// tool_calls and tool_call_id are rendered by the template, so counted: they
			// are left to slowParse, which keeps them.
			if foldsToKnown(key, messageKeys) || foldsToKnown(key, toolMessageKeys) {
				return m, false
			}
			c.Skip()
			continue
		}
		if seen&bit != 0 {
			return m, false
		}
		seen |= bit
		s, ok := text(c)
		if !ok {
			return m, false
		}
		switch bit {
		case 1:
			m.Role = s
		case 2:
			m.Name = s
		default:
			m.Content = s
		}
	}
	return m, true
}

// promptValue reads a string or a flat, non-empty list of integer ids.
func promptValue(c *jsoncur.Cursor, r *Request) bool {
	switch c.Peek() {
	case '"':
		var ok bool
		r.PromptText, ok = text(c)
		return ok
	case '[':
	default:
		return false
	}
	if !c.Array() {
		return false // an empty list: slowParse words the error
	}
	ids := make([]int, 0, 256)
	for more := true; more; more = c.NextElem() {
		v, ok := integer(c)
		if !ok {
			return false
		}
		ids = append(ids, v)
	}
	r.PromptIDs, r.HasIDs = ids, true
	return true
}

func streamOptions(c *jsoncur.Cursor, r *Request) bool {
	if c.Peek() != '{' {
		return false
	}
	var seen bool
	for more := c.Object(); more; more = c.NextMember() {
		key := c.Unquote(c.Key())
		if string(key) != "include_usage" {
			if foldsToKnown(key, streamOptionKeys) {
				return false
			}
			c.Skip()
			continue
		}
		if seen {
			return false
		}
		seen = true
		var ok bool
		if r.IncludeUsage, ok = boolean(c); !ok {
			return false
		}
	}
	return true
}
