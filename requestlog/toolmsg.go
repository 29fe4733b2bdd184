package requestlog

import (
	"encoding/json"
	"fmt"

	"github.com/llm-replay/replay/chat"
)

// parseMessage reads one chat message: its role and content, and the parts of tool use that
// templates render (so they count toward the prompt): an assistant turn's tool_calls, a tool
// answer's tool_call_id, and a name; and its images (the index-th message). f names the
// message, for errors.
func parseMessage(mo map[string]any, f string, index int) (chat.Message, []loggedPart, error) {
	role, ok := mo["role"].(string)
	if !ok {
		return chat.Message{}, nil, bad(f+".role", "missing or not a string")
	}
	content, imgs, err := messageContent(mo["content"], f+".content", index)
	if err != nil {
		return chat.Message{}, nil, err
	}
	m := chat.Message{Role: role, Content: content}
	for k, dst := range map[string]*string{"tool_call_id": &m.ToolCallID, "name": &m.Name} {
		switch v := mo[k].(type) {
		case nil:
		case string:
			*dst = v
		default:
			return chat.Message{}, nil, bad(f+"."+k, "not a string")
		}
	}
	if m.ToolCalls, err = parseToolCalls(mo["tool_calls"], f+".tool_calls"); err != nil {
		return chat.Message{}, nil, err
	}
	return m, imgs, nil
}

// parseToolCalls reads [{"id", "type", "function": {"name", "arguments"}}]. Arguments are the
// JSON text the model wrote; an object in their place (some logs store them decoded) is
// written back as JSON (its keys then sorted: the decoded object kept no order).
func parseToolCalls(v any, f string) ([]chat.ToolCall, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, bad(f, "not an array")
	}
	calls := make([]chat.ToolCall, 0, len(list))
	for i, cv := range list {
		cf := fmt.Sprintf("%s[%d]", f, i)
		co, ok := cv.(map[string]any)
		if !ok {
			return nil, bad(cf, "not an object")
		}
		fn, ok := co["function"].(map[string]any)
		if !ok {
			return nil, bad(cf+".function", "missing or not an object")
		}
		name, ok := fn["name"].(string)
		if !ok {
			return nil, bad(cf+".function.name", "missing or not a string")
		}
		args, err := argumentsText(fn["arguments"])
		if err != nil {
			return nil, &fieldError{field: cf + ".function.arguments", err: err}
		}
		id, _ := co["id"].(string)
		typ, _ := co["type"].(string)
		calls = append(calls, chat.ToolCall{ID: id, Type: typ, Function: chat.FunctionCall{Name: name, Arguments: args}})
	}
	return calls, nil
}

func argumentsText(v any) (string, error) {
	switch a := v.(type) {
	case nil:
		return "", nil
	case string:
		return a, nil
	case map[string]any, []any:
		b, err := json.Marshal(a)
		return string(b), err
	}
	return "", fmt.Errorf("not a string or a JSON object")
}
