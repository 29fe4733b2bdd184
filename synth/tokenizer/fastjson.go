package tokenizer

import (
	"encoding/json"
	"errors"

	"github.com/llm-replay/replay/internal/jsoncur"
)

// Vocabularies and merge lists are most of a tokenizer.json (Gemma 3: 262k tokens, 515k merges)
// and encoding/json decodes them slowly through reflection. These walkers read the common
// shapes directly with the shared JSON cursor (as strict as encoding/json, strings decoded the
// same way) and hand anything unusual back to encoding/json, so they change speed only.

var errShape = errors.New("unexpected JSON shape")

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
	c := jsoncur.New(raw)
	if c.Peek() != '{' {
		return nil, errShape
	}
	m := make(map[string]int32, len(raw)/16)
	for more := c.Object(); more; more = c.NextMember() {
		k := string(c.Unquote(c.Key()))
		v, ok := int32Value(&c)
		if !ok {
			return nil, errShape
		}
		m[k] = v
	}
	if c.End() != nil {
		return nil, errShape
	}
	return m, nil
}

// int32Value reads an integer literal within int32, as encoding/json puts in an int32.
func int32Value(c *jsoncur.Cursor) (int32, bool) {
	if p := c.Peek(); p != '-' && (p < '0' || p > '9') {
		return 0, false
	}
	v, ok := c.Int64()
	return int32(v), ok && v >= -1<<31 && v <= 1<<31-1
}

// scanStrings reads ["a", "b", ...] or, when pairs is set, [["a", "b"], ...] flattened.
func scanStrings(raw []byte, pairs bool) ([]string, error) {
	c := jsoncur.New(raw)
	if c.Peek() != '[' {
		return nil, errShape
	}
	var out []string
	for more := c.Array(); more; more = c.NextElem() {
		var ok bool
		if out, ok = appendElem(&c, out, pairs); !ok {
			return nil, errShape
		}
	}
	if c.End() != nil {
		return nil, errShape
	}
	return out, nil
}

// appendElem appends one element of a merge list: a string, or with pairs a list of two.
func appendElem(c *jsoncur.Cursor, out []string, pairs bool) ([]string, bool) {
	if !pairs {
		if c.Peek() != '"' {
			return out, false
		}
		return append(out, string(c.Text())), true
	}
	if c.Peek() != '[' {
		return out, false
	}
	n := 0
	for more := c.Array(); more; more = c.NextElem() {
		if n++; n > 2 || c.Peek() != '"' {
			return out, false
		}
		out = append(out, string(c.Text()))
	}
	return out, n == 2
}
