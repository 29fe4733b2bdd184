package requestlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// member is one member of a JSON object: its key and its value's text.
type member struct {
	key string
	raw json.RawMessage
}

// orderedMembers reads a JSON object's members in their order; a repeated key keeps its
// first place and takes the last value, as the decoders of the body do.
func orderedMembers(body []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		if i := memberIndex(out, key); i >= 0 {
			out[i].raw = raw
			continue
		}
		out = append(out, member{key, raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one JSON value")
	}
	return out, nil
}

func memberIndex(ms []member, key string) int {
	for i, m := range ms {
		if m.key == key {
			return i
		}
	}
	return -1
}

// get is member key's value, nil when absent.
func get(ms []member, key string) json.RawMessage {
	if i := memberIndex(ms, key); i >= 0 {
		return ms[i].raw
	}
	return nil
}

// fields is Options.Fields: the body's members an api request carries as logged (see
// carried), compact, in the logged order; nil when there are none. Unless keepText, the
// members that name a user or hold a schema are rewritten (see field).
func (r *redactor) fields(ms []member, api string, keepText bool, pseudo func(string) string) (json.RawMessage, error) {
	var b []byte
	for _, m := range ms {
		if !carried(api, m.key) {
			continue
		}
		v := compact(m.raw)
		if !keepText {
			var err error
			if v, err = r.field(m.key, v, pseudo); err != nil {
				return nil, fmt.Errorf("%s: %w", m.key, err)
			}
		}
		if b == nil {
			b = append(b, '{')
		} else {
			b = append(b, ',')
		}
		b = appendString(b, m.key)
		b = append(append(b, ':'), v...)
	}
	if b == nil {
		return nil, nil
	}
	return append(b, '}'), nil
}

// identityFields name the end user (OpenAI's user, safety_identifier and prompt_cache_key;
// metadata, which holds Anthropic's user_id and OpenAI's key-value tags): their strings
// become keyed pseudonyms, as logged session ids do, so a trace keeps who sent what apart
// without naming anyone.
var identityFields = map[string]bool{"user": true, "safety_identifier": true, "prompt_cache_key": true, "metadata": true}

// field rewrites a carried member's value for a trace without text: identities pseudonymized,
// schemas (vLLM's guided_json and structured_outputs.json, Anthropic's output_format and
// output_config.format) with their text replaced as response_format's is; other members as
// logged.
func (r *redactor) field(key string, raw []byte, pseudo func(string) string) ([]byte, error) {
	switch {
	case identityFields[key]:
		n, err := parseOrdered(raw)
		if err != nil {
			return nil, err
		}
		pseudonymize(n, pseudo)
		return n.appendJSON(nil), nil
	case key == "guided_json":
		return r.redact('g', raw, r.schema)
	case key == "structured_outputs":
		return r.redact('s', raw, func(n *jnode) { within(n, "json", r.schema) })
	case key == "output_format":
		return r.responseFormat(raw)
	case key == "output_config":
		return r.redact('c', raw, func(n *jnode) { within(n, "format", r.format) })
	}
	return raw, nil
}

// pseudonymize replaces every string in n (object keys kept) with its pseudonym.
func pseudonymize(n *jnode, pseudo func(string) string) {
	switch n.kind {
	case 's':
		n.text = pseudo(n.text)
	case 'o', 'a':
		for _, v := range n.vals {
			pseudonymize(v, pseudo)
		}
	}
}

// within walks member key of object n with walk and keeps the others as they are (options
// beside the schema: regex, choice, effort).
func within(n *jnode, key string, walk func(*jnode)) {
	if i := n.index(key); n.kind == 'o' && i >= 0 {
		walk(n.vals[i])
	}
}
