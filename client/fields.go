package client

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/llm-replay/replay/internal/jsoncur"
)

// fields.go splices Options.Fields, a logged body's other members, into the body an encoder
// built: raw, in their logged order, so that what the replay sends is what the client sent.

// fieldMembers checks Fields (one JSON object, no key twice) and returns its members as
// `,"k":v,...` and its keys; nothing when Fields is empty or {}.
func (o *Options) fieldMembers() (raw []byte, keys []string, err error) {
	if o == nil || len(o.Fields) == 0 {
		return nil, nil, nil
	}
	c := jsoncur.New(o.Fields)
	if c.Peek() != '{' {
		return nil, nil, errors.New("client: option fields is not a JSON object")
	}
	for more := c.Object(); more; more = c.NextMember() {
		k := string(key(&c))
		c.Skip()
		if slices.Contains(keys, k) {
			return nil, nil, fmt.Errorf("client: option fields has the key %q twice", k)
		}
		keys = append(keys, k)
	}
	if err := c.End(); err != nil {
		return nil, nil, fmt.Errorf("client: option fields is not JSON: %w", err)
	}
	if len(keys) == 0 {
		return nil, nil, nil
	}
	b := bytes.TrimSpace(o.Fields)
	inner := bytes.TrimSpace(b[1 : len(b)-1]) // valid JSON: b is {...}
	raw = make([]byte, 0, len(inner)+1)
	return append(append(raw, ','), inner...), keys, nil
}

// addFields splices Fields' members into the body object b, failing on a key b already has:
// the encoder wrote it from the request's typed fields, and a second one would be ambiguous
// to the server. It returns the keys it added, which ExtraBody may still replace.
func (o *Options) addFields(b []byte, api apiKind) ([]byte, []string, error) {
	raw, keys, err := o.fieldMembers()
	if err != nil || raw == nil {
		return b, nil, err
	}
	have, err := topKeys(b)
	if err != nil {
		return nil, nil, err
	}
	for _, k := range keys {
		if slices.Contains(have, k) {
			return nil, nil, fmt.Errorf("client: option fields has %q, which the %s body already has from the request's own fields", k, api)
		}
	}
	b, err = spliceFields(b, raw)
	return b, keys, err
}

// topKeys lists the keys of the object b, skipping their values.
func topKeys(b []byte) ([]string, error) {
	c := jsoncur.New(b)
	if c.Peek() != '{' {
		return nil, errors.New("client: encoding request: body is not an object")
	}
	var keys []string
	for more := c.Object(); more; more = c.NextMember() {
		keys = append(keys, string(key(&c)))
		c.Skip()
	}
	if err := c.Err(); err != nil {
		return nil, fmt.Errorf("client: encoding request: %w", err)
	}
	return keys, nil
}
