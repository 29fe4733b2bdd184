package requestlog

import (
	"bytes"
	"encoding/json"
)

// rawBody is the request body's JSON text as it was logged: the line's bytes walked along the
// request field's path, a JSON string on the way (a body logged as text) read as the text it
// holds. The decoded body has lost its objects' key order, which tool definitions and schemas
// must keep (see jnode); encoding/json's RawMessage keeps the text. A Parquet log's row was
// written from a map, so a body stored as a nested group comes in with its keys sorted.
func rawBody(data []byte, path []string) ([]byte, error) {
	raw := json.RawMessage(data)
	for _, k := range path {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(unquoted(raw), &obj); err != nil {
			return nil, err
		}
		raw = obj[k]
	}
	return unquoted(raw), nil
}

// unquoted is the text a JSON string holds, or raw itself when it is not a string.
func unquoted(raw json.RawMessage) json.RawMessage {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return json.RawMessage(s)
		}
	}
	return raw
}

// rawOptions fills e's JSON options from the body's text: tools (e.tools keeps them as
// logged, for the template), tool_choice and response_format, their text replaced by
// redact unless keepText, and with keepText the whole body. name is the body's field.
func rawOptions(data []byte, path []string, name string, e *entry, red *redactor, keepText bool) error {
	body, err := rawBody(data, path)
	if err != nil {
		return bad(name, "reading its JSON text: %v", err)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return bad(name, "reading its JSON text: %v", err)
	}
	if keepText {
		e.opts.Body = compact(body)
	}
	tools, err := member(members, "tools", '[', name)
	if err != nil {
		return err
	}
	if tools != nil {
		e.tools = tools
		if e.opts.Tools = tools; !keepText {
			if e.opts.Tools, err = red.tools(tools); err != nil {
				return bad(name+".tools", "%v", err)
			}
		}
	}
	if e.opts.ToolChoice, err = member(members, "tool_choice", 0, name); err != nil {
		return err
	}
	format, err := member(members, "response_format", '{', name)
	if err != nil || format == nil {
		return err
	}
	if e.opts.ResponseFormat = format; !keepText {
		if e.opts.ResponseFormat, err = red.responseFormat(format); err != nil {
			return bad(name+".response_format", "%v", err)
		}
	}
	return nil
}

// member is the body's member k compacted, nil when absent or null; open, when not 0, is
// the bracket it must start with.
func member(members map[string]json.RawMessage, k string, open byte, name string) (json.RawMessage, error) {
	raw := bytes.TrimSpace(members[k])
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if open != 0 && raw[0] != open {
		return nil, bad(name+"."+k, "not a JSON %s", map[byte]string{'[': "array", '{': "object"}[open])
	}
	return compact(raw), nil
}

// compact is raw without insignificant white space (no HTML escaping, unlike json.Marshal),
// so the trace stores and reads back the same bytes.
func compact(raw []byte) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return append(json.RawMessage(nil), raw...) // already checked as JSON; not expected
	}
	return b.Bytes()
}
