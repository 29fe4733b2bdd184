package client

import (
	"errors"
	"fmt"

	"github.com/llm-replay/replay/internal/jsoncur"
)

// verbatim is a logged body as it will be sent (--body verbatim) and what it asks for.
type verbatim struct {
	body []byte
	// streamed is the body's "stream" (false when absent, as the API defaults it);
	// includeUsage its stream_options.include_usage.
	streamed, includeUsage bool
	// inputs is how many inputs its "input" holds, as an embeddings request reads it (-1
	// when there is none, or it is not a string or an array).
	inputs int
	// keys are the body's adapter fields (lora_path, lora), which the replay does not add again.
	keys []string
}

// verbatimBody is logged with its top-level "model" value replaced by model (inserted first
// when there is none), every other byte kept: the replay sends what the client sent, to the
// model under test. It also reads the body's stream flags, which decide how the answer is
// read and judged. A body that is not one JSON object is an error.
func verbatimBody(logged []byte, model string) (verbatim, error) {
	v := verbatim{inputs: -1}
	name, err := marshal(model)
	if err != nil {
		return v, fmt.Errorf("client: encoding the model name: %w", err)
	}
	c := jsoncur.New(logged)
	if c.Peek() != '{' {
		return v, errors.New("client: the logged body is not a JSON object")
	}
	start, end := -1, -1
	for more := c.Object(); more; more = c.NextMember() {
		switch k := string(key(&c)); k {
		case "model":
			c.Peek() // to the value
			start = c.Offset()
			c.Skip()
			end = c.Offset()
		case "stream":
			v.streamed = boolOrSkip(&c)
		case "stream_options":
			v.includeUsage = includeUsage(&c)
		case "input":
			v.inputs = inputCount(&c)
		case adapterLoraPath, adapterLoraIDs:
			v.keys = append(v.keys, k) // the logged body's own adapter wins
			c.Skip()
		default:
			c.Skip()
		}
	}
	if err := c.End(); err != nil {
		return v, fmt.Errorf("client: the logged body is not JSON: %w", err)
	}
	v.body = spliceModel(logged, name, start, end)
	return v, nil
}

// spliceModel replaces body[start:end] with name, or inserts "model":name first when start
// is -1.
func spliceModel(body, name []byte, start, end int) []byte {
	out := make([]byte, 0, len(body)+len(name)+10)
	if start < 0 {
		open := 0
		for body[open] != '{' {
			open++
		}
		out = append(out, body[:open+1]...)
		out = append(out, `"model":`...)
		out = append(out, name...)
		rest := body[open+1:]
		if !onlyClose(rest) {
			out = append(out, ',')
		}
		return append(out, rest...)
	}
	out = append(out, body[:start]...)
	out = append(out, name...)
	return append(out, body[end:]...)
}

// onlyClose reports whether b is whitespace and the closing brace of an empty object.
func onlyClose(b []byte) bool {
	c := jsoncur.New(b)
	return c.Peek() == '}'
}

// boolOrSkip reads a value and reports whether it is true.
func boolOrSkip(c *jsoncur.Cursor) bool {
	if p := c.Peek(); p == 't' || p == 'f' {
		return c.Bool()
	}
	c.Skip()
	return false
}

// includeUsage reads stream_options and reports its include_usage.
func includeUsage(c *jsoncur.Cursor) bool {
	if c.Peek() != '{' {
		c.Skip()
		return false
	}
	on := false
	for more := c.Object(); more; more = c.NextMember() {
		if string(key(c)) == "include_usage" {
			on = boolOrSkip(c)
		} else {
			c.Skip()
		}
	}
	return on
}

// inputCount reads an embeddings request's "input": a string is one input, an array of
// numbers one (token ids), any other array one per element.
func inputCount(c *jsoncur.Cursor) int {
	switch c.Peek() {
	case '"':
		c.Skip()
		return 1
	case '[':
	default:
		c.Skip()
		return -1
	}
	n, ids := 0, false
	for more := c.Array(); more; more = c.NextElem() {
		if p := c.Peek(); n == 0 && (p == '-' || (p >= '0' && p <= '9')) {
			ids = true
		}
		c.Skip()
		n++
	}
	if ids {
		return 1
	}
	return n
}
