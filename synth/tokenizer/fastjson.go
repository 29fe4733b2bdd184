package tokenizer

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
)

// Vocabularies and merge lists are most of a tokenizer.json (Gemma 3: 262k tokens, 515k merges)
// and encoding/json decodes them slowly through reflection. These scanners read the common
// shapes directly and hand anything unusual back to encoding/json, so they change speed only.

var errShape = errors.New("unexpected JSON shape")

// jsonScanner walks a JSON value byte by byte.
type jsonScanner struct {
	b []byte
	i int
}

func (s *jsonScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *jsonScanner) eat(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str reads a JSON string; escaped ones go through encoding/json.
func (s *jsonScanner) str() (string, error) {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return "", errShape
	}
	start := s.i + 1
	escaped := false
	for j := start; j < len(s.b); j++ {
		switch s.b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			s.i = j + 1
			if !escaped && utf8.Valid(s.b[start:j]) {
				return string(s.b[start:j]), nil
			}
			var out string
			if err := json.Unmarshal(s.b[start-1:j+1], &out); err != nil {
				return "", err
			}
			return out, nil
		default:
			if s.b[j] < 0x20 {
				return "", errShape
			}
		}
	}
	return "", errShape
}

func (s *jsonScanner) int32() (int32, error) {
	s.ws()
	j := s.i
	for j < len(s.b) && (s.b[j] == '-' || (s.b[j] >= '0' && s.b[j] <= '9')) {
		j++
	}
	v, err := strconv.ParseInt(string(s.b[s.i:j]), 10, 32)
	if err != nil {
		return 0, errShape
	}
	s.i = j
	return int32(v), nil
}

// decodeVocab reads {"token": id, ...}.
func decodeVocab(raw json.RawMessage) (map[string]int32, error) {
	if isNull(raw) {
		return map[string]int32{}, nil
	}
	if m, err := scanVocab(raw); err == nil {
		return m, nil
	}
	var m map[string]int32
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	return m, nil
}

func scanVocab(raw []byte) (map[string]int32, error) {
	s := &jsonScanner{b: raw}
	if !s.eat('{') {
		return nil, errShape
	}
	m := make(map[string]int32, len(raw)/16)
	if s.eat('}') {
		return m, nil
	}
	for {
		k, err := s.str()
		if err != nil || !s.eat(':') {
			return nil, errShape
		}
		v, err := s.int32()
		if err != nil {
			return nil, err
		}
		m[k] = v
		if s.eat(',') {
			continue
		}
		if s.eat('}') {
			s.ws()
			if s.i != len(s.b) {
				return nil, errShape
			}
			return m, nil
		}
		return nil, errShape
	}
}

// scanStrings reads ["a", "b", ...] or, when pairs is set, [["a", "b"], ...] flattened.
func scanStrings(raw []byte, pairs bool) ([]string, error) {
	s := &jsonScanner{b: raw}
	if !s.eat('[') {
		return nil, errShape
	}
	var out []string
	if s.eat(']') {
		return out, nil
	}
	for {
		if pairs {
			if !s.eat('[') {
				return nil, errShape
			}
			a, err := s.str()
			if err != nil || !s.eat(',') {
				return nil, errShape
			}
			b, err := s.str()
			if err != nil || !s.eat(']') {
				return nil, errShape
			}
			out = append(out, a, b)
		} else {
			a, err := s.str()
			if err != nil {
				return nil, err
			}
			out = append(out, a)
		}
		if s.eat(',') {
			continue
		}
		if s.eat(']') {
			s.ws()
			if s.i != len(s.b) {
				return nil, errShape
			}
			return out, nil
		}
		return nil, errShape
	}
}
