package requestlog

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/trace"
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

// rawOptions fills e's options that are read from the body's text, which keeps key order:
// tools (e.tools gets them in the chat API's shape, as logged, for the template), tool_choice,
// response_format (the Responses API's text), the carried Fields and the logged order of
// Anthropic tool_use inputs; the tools', schemas' and users' text replaced (see redactor)
// unless keepText, and with keepText the whole body. name is the body's field; pseudo makes
// an id's pseudonym.
func rawOptions(data []byte, path []string, name string, e *entry, red *redactor, keepText bool, pseudo func(string) string) error {
	body, err := rawBody(data, path)
	if err != nil {
		return bad(name, "reading its JSON text: %v", err)
	}
	ms, err := orderedMembers(body)
	if err != nil {
		return bad(name, "reading its JSON text: %v", err)
	}
	if keepText {
		e.opts.Body = compact(body)
	}
	if err := rawTools(ms, name, e, red, keepText); err != nil {
		return err
	}
	if e.opts.ToolChoice, err = memberValue(ms, "tool_choice", 0, name); err != nil {
		return err
	}
	formatKey, redact := "response_format", red.responseFormat
	if e.api == trace.APIResponses {
		formatKey, redact = "text", red.textConfig
	}
	format, err := memberValue(ms, formatKey, '{', name)
	if err != nil {
		return err
	}
	if e.opts.ResponseFormat = format; format != nil && !keepText {
		if e.opts.ResponseFormat, err = redact(format); err != nil {
			return bad(name+"."+formatKey, "%v", err)
		}
	}
	if e.opts.Fields, err = red.fields(ms, e.api, keepText, pseudo); err != nil {
		return bad(name, "carrying its fields: %v", err)
	}
	return orderToolInputs(get(ms, "messages"), name, e)
}

// rawTools fills the options' tools (redacted unless keepText) and e.tools, the template's.
func rawTools(ms []member, name string, e *entry, red *redactor, keepText bool) error {
	tools, err := memberValue(ms, "tools", '[', name)
	if err != nil || tools == nil {
		return err
	}
	if e.tools, err = chat.ToolsAsChat(e.api, tools); err != nil {
		return bad(name+".tools", "%v", err)
	}
	if e.opts.Tools = tools; !keepText {
		if e.opts.Tools, err = red.apiTools(e.api, tools); err != nil {
			return bad(name+".tools", "%v", err)
		}
	}
	return nil
}

// orderToolInputs writes each Anthropic tool_use input back as the arguments of its tool
// call in its logged key order, read from the body's messages text: the template prints the
// arguments as they come.
func orderToolInputs(messages json.RawMessage, name string, e *entry) error {
	if len(e.useRefs) == 0 {
		return nil
	}
	var msgs []struct {
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(messages, &msgs); err != nil {
		return bad(name+".messages", "reading its JSON text: %v", err)
	}
	blocks := map[int][]struct {
		Input json.RawMessage `json:"input"`
	}{}
	for _, ref := range e.useRefs {
		bs, ok := blocks[ref.srcMsg]
		if !ok && ref.srcMsg < len(msgs) {
			if err := json.Unmarshal(msgs[ref.srcMsg].Content, &bs); err != nil {
				return bad(fmt.Sprintf("%s.messages[%d].content", name, ref.srcMsg), "reading its JSON text: %v", err)
			}
			blocks[ref.srcMsg] = bs
		}
		if ref.srcBlock >= len(bs) {
			return bad(fmt.Sprintf("%s.messages[%d].content", name, ref.srcMsg), "its text does not hold the decoded blocks")
		}
		if in := bytes.TrimSpace(bs[ref.srcBlock].Input); len(in) > 0 && string(in) != "null" {
			e.messages[ref.msg].ToolCalls[ref.call].Function.Arguments = string(compact(in))
		}
	}
	return nil
}

// memberValue is the body's member k compacted, nil when absent or null; open, when not 0, is
// the bracket it must start with.
func memberValue(ms []member, k string, open byte, name string) (json.RawMessage, error) {
	raw := bytes.TrimSpace(get(ms, k))
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
