package sim

import (
	"bytes"
	"encoding/json"
	"errors"
)

// chatform.go turns the Responses API's and Anthropic's conversations into chat's form, the one
// the ChatCounter hook and renderChat read: messages with chat's roles, an assistant turn's
// calls as chat's tool_calls list, a tool answer as a "tool" message with its tool_call_id, and
// tools as chat's {"type":"function","function":{"name","description","parameters"}}. That is
// what vLLM does before it renders either through the chat template
// (vllm-project/vllm@01ca842df5b1ddd7f91aa376294040d126a453f2:
// vllm/entrypoints/openai/responses/utils.py construct_input_messages,
// convert_tool_responses_to_completions_format;
// vllm@0001948bc76939369ca855c90b36d81256477e85: vllm/entrypoints/anthropic/serving.py
// _convert_anthropic_to_openai_request), so the same conversation counts the same tokens
// whichever API carried it.

// chatCall is one call of chat's tool_calls list, its members in the order chat clients send
// them.
type chatCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func newChatCall(id, name, arguments string) chatCall {
	c := chatCall{ID: id, Type: "function"}
	c.Function.Name, c.Function.Arguments = name, arguments
	return c
}

// chatTurn is a chat message being built, with its calls kept apart until the conversation is
// whole (a later item may add a call to it).
type chatTurn struct {
	Message
	calls []chatCall
}

// chatMessages finishes a conversation: each turn's calls become its tool_calls JSON.
func chatMessages(turns []chatTurn) ([]Message, error) {
	out := make([]Message, len(turns))
	for i, t := range turns {
		out[i] = t.Message
		if len(t.calls) == 0 {
			continue
		}
		raw, err := marshalCompact(t.calls)
		if err != nil {
			return nil, err
		}
		out[i].ToolCalls = raw
	}
	return out, nil
}

// marshalCompact is v as JSON without HTML escaping, as a client writes it.
func marshalCompact(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// compactJSON is raw without insignificant whitespace; nil for absent or null.
func compactJSON(raw json.RawMessage) (json.RawMessage, error) {
	if isNull(raw) {
		return nil, nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// appendChatTool appends one tool in chat's shape: name, then description and parameters when
// given (raw JSON, compacted), in the order vLLM's FunctionDefinition dumps them.
func appendChatTool(b []byte, name string, desc, params json.RawMessage) ([]byte, error) {
	b = append(b, `{"type":"function","function":{"name":`...)
	b = appendJSONString(b, name)
	for _, m := range [...]struct {
		key string
		raw json.RawMessage
	}{{"description", desc}, {"parameters", params}} {
		v, err := compactJSON(m.raw)
		if err != nil {
			return nil, err
		}
		if v != nil {
			b = append(b, `,"`...)
			b = append(b, m.key...)
			b = append(b, `":`...)
			b = append(b, v...)
		}
	}
	return append(b, "}}"...), nil
}

// finishTools closes a tools list being appended to b ("[" and its elements), nil when it
// has no element: a request offering no tool has no tools, as Request.Tools says.
func finishTools(b []byte) json.RawMessage {
	if len(b) <= 1 {
		return nil
	}
	return append(b, ']')
}

// objectList decodes raw as a list of JSON values; null or absent is an empty list.
func objectList(raw json.RawMessage) ([]json.RawMessage, error) {
	if isNull(raw) {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, errors.New("must be a list")
	}
	return items, nil
}
