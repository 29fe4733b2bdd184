package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
)

// ForcingKeys are the ExtraBody fields that force an answer's length (vLLM's and SGLang's
// ignore_eos, vLLM's min_tokens). A request marked Unforced is sent without them: its logged
// answer stopped on its own or was constrained, so forcing it would make it run past where it
// ended.
var ForcingKeys = []string{"ignore_eos", "min_tokens"}

// extraBody is Config.ExtraBody ready to send: suffix is `,"k":v,...}` spliced over the
// closing brace of go-openai's body when no extra key collides with a key the body may hold;
// raw is merged key by key otherwise (merge).
type extraBody struct {
	suffix []byte
	raw    map[string]json.RawMessage
	merge  bool
}

// emittedKeys are the keys go-openai, Options or an API's encoder may put in the bodies we
// build; an extra key among them needs a merge instead of a splice (a duplicate key would be
// ambiguous to the server), and the extra value wins. (A key of the request's own
// Options.Fields is checked per body: addExtra.)
var emittedKeys = func() map[string]bool {
	m := map[string]bool{"model": true, "messages": true, "prompt": true, "max_tokens": true,
		"stream": true, "stream_options": true, "input": true, "system": true}
	for _, k := range optionKeys {
		m[k] = true
	}
	return m
}()

// setExtra prepares ExtraBody for every request, and without ForcingKeys for unforced ones.
func (c *Client) setExtra(extra map[string]any) error {
	for i := range c.maxOverride {
		c.maxOverride[i] = -1
	}
	if len(extra) == 0 {
		return nil
	}
	var err error
	if c.extra, err = newExtraBody(extra, nil); err != nil {
		return err
	}
	if c.unforced, err = newExtraBody(extra, ForcingKeys); err != nil {
		return err
	}
	for i := range c.maxOverride {
		c.maxOverride[i] = overrideMax(c.extra.raw, apiKind(i))
	}
	return nil
}

// newExtraBody encodes extra's fields but those in leave, in key order.
func newExtraBody(extra map[string]any, leave []string) (extraBody, error) {
	keys := make([]string, 0, len(extra))
	for k := range extra {
		if k == "stream" {
			return extraBody{}, fmt.Errorf("client: extra body field %q cannot be overridden", k)
		}
		if !slices.Contains(leave, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return extraBody{}, nil
	}
	sort.Strings(keys)
	e := extraBody{raw: make(map[string]json.RawMessage, len(keys))}
	var suffix bytes.Buffer
	for _, k := range keys {
		v, err := marshal(extra[k])
		if err != nil {
			return extraBody{}, fmt.Errorf("client: extra body field %q: %w", k, err)
		}
		kb, _ := marshal(k)
		e.raw[k] = v
		suffix.WriteByte(',')
		suffix.Write(kb)
		suffix.WriteByte(':')
		suffix.Write(v)
		e.merge = e.merge || emittedKeys[k]
	}
	suffix.WriteByte('}')
	e.suffix = suffix.Bytes()
	return e, nil
}

// add merges e into a body object; fieldKeys are the keys the body took from the request's
// Options.Fields, which an extra key replaces as it does an emitted one.
func (e *extraBody) add(b []byte, fieldKeys []string) ([]byte, error) {
	if len(e.raw) == 0 {
		return b, nil
	}
	if !e.merge && !e.collides(fieldKeys) {
		if len(b) < 2 || b[len(b)-1] != '}' {
			return nil, fmt.Errorf("client: encoding request: body is not an object")
		}
		if len(b) == 2 { // "{}": no comma before the first extra field
			return append([]byte{'{'}, e.suffix[1:]...), nil
		}
		return append(b[:len(b)-1], e.suffix...), nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("client: encoding request: %w", err)
	}
	for k, v := range e.raw {
		m[k] = v
	}
	return marshal(m)
}

// collides reports whether an extra key is among keys.
func (e *extraBody) collides(keys []string) bool {
	for _, k := range keys {
		if _, ok := e.raw[k]; ok {
			return true
		}
	}
	return false
}
