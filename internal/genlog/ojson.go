package genlog

import (
	"bytes"
	"encoding/json"
)

// marshal writes v as a gateway logs it: compact, with no HTML escapes (a request's text
// reads as it was sent, and the reader keeps the bytes of tools and schemas).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// obj is a JSON object with its members in the order given (key, value, key, value...):
// tools and schemas are sent in their authors' order, which a template prints as is. It
// panics on a value encoding/json cannot write, which the generator never makes.
func obj(kv ...any) json.RawMessage {
	b := []byte{'{'}
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := marshal(kv[i].(string))
		if err != nil {
			panic(err)
		}
		v, err := marshal(kv[i+1])
		if err != nil {
			panic(err)
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}')
}

// arr is a JSON array of the values given.
func arr(vs ...any) json.RawMessage {
	b, err := marshal(vs)
	if err != nil {
		panic(err)
	}
	return b
}
