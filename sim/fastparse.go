package sim

import (
	"bytes"
	"math"
	"unicode/utf8"

	"github.com/llm-replay/replay/internal/jsoncur"
)

// fastParse reads the common shapes of a request body without reflection. It answers (ok)
// only when it is sure encoding/json would decode the body the same way: valid JSON (the
// cursor checks every byte as strictly as encoding/json), an object, known fields spelled
// exactly and given once, with plain types (strings, integer limits, a text or id prompt).
// Anything else returns ok=false for slowParse, which also words every syntax error.
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
	if c.End() != nil {
		return Request{}, nil, false
	}
	if err := applyLimits(f.limits, defaultMaxTokens, &r); err != nil {
		return Request{}, err, true
	}
	if chat {
		if !f.messagesSet || len(r.Messages) == 0 {
			return Request{}, errNoMessages, true
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

// topFields is what the top-level walk has seen so far.
type topFields struct {
	limits
	seen                   uint32
	promptSet, messagesSet bool
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
		f.maxTokens, ok = intPtr(c)
	case "max_completion_tokens":
		f.maxCompletionTokens, ok = intPtr(c)
	case "min_tokens":
		f.minTokens, ok = intPtr(c)
	case "n":
		f.n, ok = intPtr(c)
	case "ignore_eos":
		r.IgnoreEOS, ok = boolean(c)
	case "stream":
		r.Stream, ok = boolean(c)
	case "stream_options":
		ok = streamOptions(c, r)
	}
	return ok
}

var topKeys = map[string]uint32{
	"model": 1 << 0, "messages": 1 << 1, "prompt": 1 << 2, "max_tokens": 1 << 3,
	"max_completion_tokens": 1 << 4, "min_tokens": 1 << 5, "n": 1 << 6, "ignore_eos": 1 << 7,
	"stream": 1 << 8, "stream_options": 1 << 9,
}

var messageKeys = map[string]uint32{"role": 1, "name": 2, "content": 4}

var streamOptionKeys = map[string]uint32{"include_usage": 1}

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

// intPtr reads an integer literal within int, which is what encoding/json puts in an *int.
func intPtr(c *jsoncur.Cursor) (*int, bool) {
	v, ok := integer(c)
	return &v, ok
}

func integer(c *jsoncur.Cursor) (int, bool) {
	if p := c.Peek(); p != '-' && (p < '0' || p > '9') {
		return 0, false
	}
	v, ok := c.Int64()
	return int(v), ok && v >= math.MinInt && v <= math.MaxInt
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
			if foldsToKnown(key, messageKeys) {
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
