package requestlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// jnode is a JSON value with its objects' keys in order: tool definitions and JSON schemas are
// rewritten (their text replaced) and must come out in the order they were sent, since a chat
// template prints them as they come and guided decoding follows a schema's property order.
type jnode struct {
	kind byte   // 'o' object, 'a' array, 's' string, 'v' number, boolean or null (raw text)
	text string // a string's value, or a scalar's JSON text
	keys []string
	vals []*jnode // an object's values (beside keys) or an array's elements
}

// parseOrdered reads one JSON value.
func parseOrdered(data []byte) (*jnode, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := readNode(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one JSON value")
	}
	return n, nil
}

func readNode(dec *json.Decoder) (*jnode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		return readContainer(dec, t)
	case string:
		return &jnode{kind: 's', text: t}, nil
	case json.Number:
		return &jnode{kind: 'v', text: t.String()}, nil
	case bool:
		return &jnode{kind: 'v', text: strconv.FormatBool(t)}, nil
	}
	return &jnode{kind: 'v', text: "null"}, nil
}

// readContainer reads an object or array's members after its opening delimiter. A repeated
// key keeps its first place and takes the last value, as decoders of the body do.
func readContainer(dec *json.Decoder, open json.Delim) (*jnode, error) {
	n := &jnode{kind: 'a'}
	if open == '{' {
		n.kind = 'o'
	}
	for dec.More() {
		key := ""
		if n.kind == 'o' {
			tok, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key, _ = tok.(string)
		}
		v, err := readNode(dec)
		if err != nil {
			return nil, err
		}
		if i := n.index(key); n.kind == 'o' && i >= 0 {
			n.vals[i] = v
			continue
		}
		n.keys, n.vals = append(n.keys, key), append(n.vals, v)
	}
	_, err := dec.Token() // the closing delimiter
	return n, err
}

// index is the position of key in an object, -1 when absent.
func (n *jnode) index(key string) int {
	for i, k := range n.keys {
		if k == key {
			return i
		}
	}
	return -1
}

// appendJSON writes n compactly, strings escaped as JSON requires and no more (no HTML
// escapes), so text that is kept reads as it was sent.
func (n *jnode) appendJSON(b []byte) []byte {
	switch n.kind {
	case 's':
		return appendString(b, n.text)
	case 'v':
		return append(b, n.text...)
	}
	open, end := byte('['), byte(']')
	if n.kind == 'o' {
		open, end = '{', '}'
	}
	b = append(b, open)
	for i, v := range n.vals {
		if i > 0 {
			b = append(b, ',')
		}
		if n.kind == 'o' {
			b = appendString(b, n.keys[i])
			b = append(b, ':')
		}
		b = v.appendJSON(b)
	}
	return append(b, end)
}

func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r < 0x20:
			b = fmt.Appendf(b, `\u%04x`, r)
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
