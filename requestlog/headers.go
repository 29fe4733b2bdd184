package requestlog

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/llm-replay/replay/trace"
)

// headers reads the line's logged request headers (the mapped "headers" field: an object of
// names to a string, or to a list of strings as Go's http.Header logs them, joined by ", " as
// RFC 9110 section 5.3 combines repeated fields). Credentials are dropped here, before the
// record exists, so no later stage can write or send them (trace.SecretHeader).
func (l line) headers() ([]trace.Header, error) {
	v, ok, err := l.get("headers")
	if err != nil || !ok {
		return nil, err
	}
	name := l.m.name("headers")
	obj, isObj := v.(map[string]any)
	if !isObj {
		return nil, bad(name, "not a JSON object of header names to values")
	}
	var out []trace.Header
	for k, hv := range obj {
		if trace.SecretHeader(k) {
			continue
		}
		s, err := headerValue(hv)
		if err != nil {
			return nil, bad(name+"."+k, "%v", err)
		}
		out = append(out, trace.Header{Name: strings.ToLower(k), Value: s})
	}
	slices.SortFunc(out, func(a, b trace.Header) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// headerValue is one logged header's value: a string, a number or a list of strings.
func headerValue(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case []any:
		parts := make([]string, 0, len(x))
		for _, p := range x {
			s, ok := p.(string)
			if !ok {
				return "", fmt.Errorf("a list holding %T, not strings", p)
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, ", "), nil
	case json.Number:
		return x.String(), nil
	default:
		return "", fmt.Errorf("%s, not a string or a list of strings", jsonKind(v))
	}
}

// jsonKind names a decoded JSON value's kind for an error.
func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("a %T", v)
}
