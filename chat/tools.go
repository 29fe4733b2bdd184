package chat

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// templateData is what one render hands the template beside the renderer's own variables:
// the messages and, when the request offered any, its tools.
type templateData struct {
	messages []any
	tools    []any
	size     int // a guess of the prompt's length, to size the output once
}

// buildData turns a request's messages and tools into template values the way an
// OpenAI-compatible server (vLLM) hands them to apply_chat_template: each message a dict with
// role and content, plus tool_calls, tool_call_id and name only when the message has them
// (templates test `'tool_calls' in message`); a call's arguments, JSON text in the API, parsed
// into an object (see callArguments); tools decoded in their key order.
func buildData(msgs []Message, tools json.RawMessage) (templateData, error) {
	d := templateData{messages: make([]any, len(msgs)), size: 64 + len(tools)}
	for i, m := range msgs {
		tm := tplMessage{"role": m.Role, "content": m.Content}
		d.size += len(m.Role) + len(m.Content) + 32
		if len(m.ToolCalls) > 0 {
			tm["tool_calls"] = toolCallValues(m.ToolCalls)
			for _, c := range m.ToolCalls {
				d.size += len(c.Function.Name) + len(c.Function.Arguments) + 48
			}
		}
		if m.ToolCallID != "" {
			tm["tool_call_id"] = m.ToolCallID
		}
		if m.Name != "" {
			tm["name"] = m.Name
		}
		if m.Reasoning != "" { // llama.cpp and vLLM both name it so for templates (Qwen3 reads it)
			tm["reasoning_content"] = m.Reasoning
			d.size += len(m.Reasoning)
		}
		d.messages[i] = tm
	}
	if t := bytes.TrimSpace(tools); len(t) > 0 && string(t) != "null" {
		v, err := decodeJSON(t)
		if err != nil {
			return d, fmt.Errorf("chat: tools: not JSON: %w", err)
		}
		list, ok := v.([]any)
		if !ok {
			return d, fmt.Errorf("chat: tools: not a JSON array")
		}
		d.tools = list
	}
	return d, nil
}

// toolCallValues are an assistant turn's calls as templates read them:
// {"id", "type", "function": {"name", "arguments"}}, in that order.
func toolCallValues(calls []ToolCall) []any {
	out := make([]any, len(calls))
	for i, c := range calls {
		typ := c.Type
		if typ == "" {
			typ = "function"
		}
		fn := &exec.Dict{Pairs: []*exec.Pair{
			{Key: exec.AsValue("name"), Value: exec.AsValue(c.Function.Name)},
			{Key: exec.AsValue("arguments"), Value: exec.AsValue(callArguments(c.Function.Arguments))},
		}}
		call := &exec.Dict{}
		if c.ID != "" {
			call.Pairs = append(call.Pairs, &exec.Pair{Key: exec.AsValue("id"), Value: exec.AsValue(c.ID)})
		}
		call.Pairs = append(call.Pairs,
			&exec.Pair{Key: exec.AsValue("type"), Value: exec.AsValue(typ)},
			&exec.Pair{Key: exec.AsValue("function"), Value: exec.AsValue(fn)})
		out[i] = call
	}
	return out
}

// callArguments is a call's arguments as templates expect them (transformers documents them
// as a dict, and vLLM parses the API's JSON text before rendering): the parsed JSON, an empty
// object for "", and the text itself when it is not JSON (a template then prints it as is, or
// quoted by tojson).
func callArguments(text string) any {
	if len(bytes.TrimSpace([]byte(text))) == 0 {
		return &exec.Dict{Pairs: []*exec.Pair{}}
	}
	v, err := decodeJSON([]byte(text))
	if err != nil {
		return text
	}
	return v
}
