package sim

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// fastParse reads the common shapes of a request body without reflection. It answers (ok)
// only when it is sure encoding/json would decode the body the same way: valid JSON, an
// object, known fields spelled exactly and given once, with plain types (string contents,
// integer limits, a text or id prompt). Anything else returns ok=false for slowParse.
func fastParse(body []byte, chat bool, defaultMaxTokens int) (r Request, err error, ok bool) {
	if !json.Valid(body) {
		return Request{}, nil, false
	}
	s := scanner{b: body}
	s.ws()
	if s.peek() != '{' {
		return Request{}, nil, false
	}
	r.Chat = chat
	var l limits
	var seen uint32
	var promptSet, messagesSet bool
	if !s.object(func(key []byte) bool {
		bit, known := topKeys[string(key)]
		if !known {
			if foldsToKnown(key, topKeys) {
				return false
			}
			s.skip()
			return true
		}
		if seen&bit != 0 {
			return false // duplicates merge in encoding/json; leave them to it
		}
		seen |= bit
		var ok bool
		switch string(key) {
		case "model":
			r.Model, ok = s.str()
		case "messages":
			if !chat {
				return false
			}
			messagesSet = true
			r.Messages, ok = s.messages()
		case "prompt":
			if chat {
				s.skip()
				return true
			}
			promptSet = true
			ok = s.prompt(&r)
		case "max_tokens":
			l.maxTokens, ok = s.intPtr()
		case "max_completion_tokens":
			l.maxCompletionTokens, ok = s.intPtr()
		case "min_tokens":
			l.minTokens, ok = s.intPtr()
		case "n":
			l.n, ok = s.intPtr()
		case "ignore_eos":
			r.IgnoreEOS, ok = s.boolean()
		case "stream":
			r.Stream, ok = s.boolean()
		case "stream_options":
			ok = s.streamOptions(&r)
		}
		return ok
	}) {
		return Request{}, nil, false
	}
	if err := applyLimits(l, defaultMaxTokens, &r); err != nil {
		return Request{}, err, true
	}
	if chat {
		if !messagesSet || len(r.Messages) == 0 {
			return Request{}, errNoMessages, true
		}
		return r, nil, true
	}
	if !promptSet {
		return Request{}, nil, false // let slowParse word the error
	}
	if r.HasIDs {
		if err := checkIDs(r.PromptIDs); err != nil {
			return Request{}, promptError(err), true
		}
	}
	return r, nil, true
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

// scanner walks a body already checked by json.Valid, so it only has to recognise values,
// never to reject malformed ones.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// object calls field for each key, with the scanner at the value; field must consume the
// value and return false to give up. key is only valid during the call.
func (s *scanner) object(field func(key []byte) bool) bool {
	s.ws()
	if s.peek() != '{' {
		return false
	}
	s.i++
	s.ws()
	if s.peek() == '}' {
		s.i++
		return true
	}
	for {
		s.ws()
		key, ok := s.key()
		if !ok {
			return false
		}
		s.ws()
		s.i++ // ':'
		s.ws()
		if !field(key) {
			return false
		}
		s.ws()
		c := s.peek()
		s.i++
		if c == '}' {
			return true
		}
		if c != ',' {
			return false
		}
	}
}

// key reads an object key without allocating when it has no escapes.
func (s *scanner) key() ([]byte, bool) {
	s.ws()
	start := s.i
	if s.peek() != '"' {
		return nil, false
	}
	for s.i++; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return s.b[start+1 : s.i-1], true
		case c == '\\' || c >= utf8.RuneSelf:
			s.i = start
			k, ok := s.str()
			return []byte(k), ok
		}
	}
	return nil, false
}

// str reads a string; escapes and invalid UTF-8 (which encoding/json replaces) go through
// encoding/json for the one string.
func (s *scanner) str() (string, bool) {
	s.ws()
	if s.peek() != '"' {
		return "", false
	}
	start := s.i
	s.i++
	plain := true
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c == '\\' {
			plain = false
			s.i += 2
			continue
		}
		s.i++
		if c == '"' {
			break
		}
		if c >= utf8.RuneSelf {
			plain = false
		}
	}
	raw := s.b[start:s.i]
	if plain || utf8.Valid(raw) && bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	var out string
	if err := json.Unmarshal(raw, &out); err != nil {
		return "", false
	}
	return out, true
}

// skip passes over any value.
func (s *scanner) skip() {
	s.ws()
	switch s.peek() {
	case '"':
		s.str()
	case '{', '[':
		depth := 0
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case '"':
				s.str()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.i++
					return
				}
			}
			s.i++
		}
	default:
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return
			}
			s.i++
		}
	}
}

// integer reads -?[0-9]{1,18}; fractions, exponents, null and huge numbers give up.
func (s *scanner) integer() (int, bool) {
	s.ws()
	neg := false
	if s.peek() == '-' {
		neg = true
		s.i++
	}
	v, digits := 0, 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		v = v*10 + int(s.b[s.i]-'0')
		digits++
		s.i++
	}
	if digits == 0 || digits > 18 {
		return 0, false
	}
	switch s.peek() {
	case '.', 'e', 'E':
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

func (s *scanner) intPtr() (*int, bool) {
	v, ok := s.integer()
	return &v, ok
}

func (s *scanner) boolean() (bool, bool) {
	s.ws()
	if bytes.HasPrefix(s.b[s.i:], []byte("true")) {
		s.i += 4
		return true, true
	}
	if bytes.HasPrefix(s.b[s.i:], []byte("false")) {
		s.i += 5
		return false, true
	}
	return false, false
}

// messages reads a list of {"role","name","content"} objects with string values.
func (s *scanner) messages() ([]Message, bool) {
	s.ws()
	if s.peek() != '[' {
		return nil, false
	}
	s.i++
	msgs := make([]Message, 0, 4)
	s.ws()
	if s.peek() == ']' {
		s.i++
		return msgs, true
	}
	for {
		var m Message
		var seen uint32
		if !s.object(func(key []byte) bool {
			bit, known := messageKeys[string(key)]
			if !known {
				if foldsToKnown(key, messageKeys) {
					return false
				}
				s.skip()
				return true
			}
			if seen&bit != 0 {
				return false
			}
			seen |= bit
			var ok bool
			switch string(key) {
			case "role":
				m.Role, ok = s.str()
			case "name":
				m.Name, ok = s.str()
			case "content":
				m.Content, ok = s.str()
			}
			return ok
		}) {
			return nil, false
		}
		msgs = append(msgs, m)
		s.ws()
		c := s.peek()
		s.i++
		if c == ']' {
			return msgs, true
		}
		if c != ',' {
			return nil, false
		}
	}
}

// prompt reads a string or a flat list of integer ids.
func (s *scanner) prompt(r *Request) bool {
	s.ws()
	switch s.peek() {
	case '"':
		var ok bool
		r.PromptText, ok = s.str()
		return ok
	case '[':
	default:
		return false
	}
	s.i++
	s.ws()
	if s.peek() == ']' {
		return false // an empty list: slowParse words the error
	}
	ids := make([]int, 0, 256)
	for {
		v, ok := s.integer()
		if !ok {
			return false
		}
		ids = append(ids, v)
		s.ws()
		c := s.peek()
		s.i++
		if c == ']' {
			r.PromptIDs, r.HasIDs = ids, true
			return true
		}
		if c != ',' {
			return false
		}
	}
}

func (s *scanner) streamOptions(r *Request) bool {
	var seen bool
	return s.object(func(key []byte) bool {
		if string(key) != "include_usage" {
			if foldsToKnown(key, streamOptionKeys) {
				return false
			}
			s.skip()
			return true
		}
		if seen {
			return false
		}
		seen = true
		var ok bool
		r.IncludeUsage, ok = s.boolean()
		return ok
	})
}
