package client

import (
	"bytes"
	"encoding/json"
)

// The scanner primitives: whitespace, punctuation, strings, integers and skipping any value.
// They validate only as much as they need to stay in bounds; the frame semantics are pinned
// for valid JSON (FuzzParseFrame), and for invalid JSON they only promise not to panic or hang.

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

// at reports whether the next byte is c (without consuming it).
func (s *scanner) at(c byte) bool { return s.i < len(s.b) && s.b[s.i] == c }

// eat consumes c if it is next.
func (s *scanner) eat(c byte) bool {
	if s.at(c) {
		s.i++
		return true
	}
	return false
}

// next is called after a member or element: it consumes the comma (more follows) or the
// closing bracket (sets done). Anything else marks the input bad.
func (s *scanner) next(closing byte) bool {
	s.ws()
	if s.i >= len(s.b) {
		s.bad = true
		return false
	}
	switch s.b[s.i] {
	case ',':
		s.i++
		return true
	case closing:
		s.i++
		s.done = true
		return true
	}
	s.bad = true
	return false
}

// key reads an object key and the colon after it. An escaped key (rare) is decoded, so
// callers compare plain bytes.
func (s *scanner) key() []byte {
	if !s.at('"') {
		s.bad = true
		return nil
	}
	k, escaped := s.strEsc()
	if escaped {
		k = []byte(decodeRaw(k))
	}
	s.ws()
	if !s.eat(':') {
		s.bad = true
		return nil
	}
	s.ws()
	return k
}

// str reads a string at s.i (which must be '"') and returns its raw bytes between the quotes,
// escapes undecoded. A byte loop beats IndexByte here: most strings in a frame are short.
func (s *scanner) str() []byte {
	raw, _ := s.strEsc()
	return raw
}

// strEsc is str that also reports whether the string has escapes.
func (s *scanner) strEsc() (raw []byte, escaped bool) {
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		switch s.b[j] {
		case '"':
			s.i = j + 1
			return s.b[start:j], escaped
		case '\\':
			escaped = true
			j++
		}
	}
	s.bad = true
	s.i = len(s.b)
	return nil, false
}

// nonEmptyString reads any value and reports whether it is a non-empty string. A raw JSON
// string is non-empty exactly when its decoded form is.
func (s *scanner) nonEmptyString() bool {
	if s.at('"') {
		return len(s.str()) > 0
	}
	s.skip()
	return false
}

// stringOrSkip reads any value, returning its raw bytes when it is a string.
func (s *scanner) stringOrSkip() (raw []byte, isString bool) {
	if s.at('"') {
		return s.str(), true
	}
	s.skip()
	return nil, false
}

// int32OrSkip reads any value and returns it when it is an integer literal (no fraction or
// exponent) within int32, else -1.
func (s *scanner) int32OrSkip() int64 {
	start := s.i
	neg := s.eat('-')
	var v int64
	digits := 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		if v <= 1<<32 {
			v = v*10 + int64(s.b[s.i]-'0')
		}
		digits++
		s.i++
	}
	if digits == 0 || (s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E')) {
		s.i = start
		s.skip()
		return -1
	}
	if neg {
		v = -v
	}
	if v > 1<<31-1 || v < -(1<<31) {
		return -1
	}
	return v
}

// skip consumes one value of any type. Containers are skipped by counting brackets outside
// strings, without recursion.
func (s *scanner) skip() {
	if s.i >= len(s.b) {
		s.bad = true
		return
	}
	switch s.b[s.i] {
	case '"':
		s.str()
		return
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
		s.bad = true
		return
	case ',', '}', ']', ':':
		s.bad = true
		return
	}
	// A number or literal: runs to the next delimiter.
	start := s.i
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			if s.i == start {
				s.bad = true
			}
			return
		}
		s.i++
	}
}

// rawEquals compares a raw JSON string body with s, decoding escapes when there are any.
func rawEquals(raw []byte, s string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw) == s
	}
	return decodeRaw(raw) == s
}

// decodeRaw turns a raw JSON string body into its text; invalid escapes give "".
func decodeRaw(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw)
	}
	q := make([]byte, 0, len(raw)+2)
	q = append(q, '"')
	q = append(q, raw...)
	q = append(q, '"')
	var out string
	if json.Unmarshal(q, &out) != nil {
		return ""
	}
	return out
}
