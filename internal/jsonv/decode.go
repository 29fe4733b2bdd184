package jsonv

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/llm-replay/replay/internal/jsoncur"
)

// SyntaxError is malformed JSON, with the byte offset where it was found.
type SyntaxError struct {
	Offset int
	msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s at offset %d", e.msg, e.Offset) }

// Decode parses data as exactly one JSON value, with surrounding whitespace allowed.
func Decode(data []byte) (any, error) {
	c := jsoncur.New(data)
	v := value(&c)
	if err := c.End(); err != nil {
		var se *jsoncur.SyntaxError
		errors.As(err, &se)
		return nil, &SyntaxError{Offset: se.Offset, msg: se.Msg}
	}
	return v, nil
}

// value builds the value at the cursor; after an error it returns anything, and Decode
// reports the error instead.
func value(c *jsoncur.Cursor) any {
	switch c.Peek() {
	case '{':
		m := map[string]any{}
		for more := c.Object(); more; more = c.NextMember() {
			k := string(c.Unquote(c.Key()))
			m[k] = value(c) // a repeated key keeps its last value, as encoding/json does
		}
		return m
	case '[':
		a := []any{}
		for more := c.Array(); more; more = c.NextElem() {
			a = append(a, value(c))
		}
		return a
	case '"':
		return string(c.Text())
	case 't', 'f':
		return c.Bool()
	case 'n':
		c.Null()
		return nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return json.Number(c.Number())
	}
	c.Skip() // not a value: the cursor words the error
	return nil
}
