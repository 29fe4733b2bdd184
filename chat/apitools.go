package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ToolsAsChat converts a request's tools from its API's shape to the chat API's
// [{"type":"function","function":{"name","description","parameters"}}], which chat templates
// are written for, as the serving engines convert them before rendering: api is "chat" (the
// tools are returned as they are), "responses" (the Responses API's flat
// {"type":"function","name","description","parameters","strict"}) or "messages" (Anthropic's
// {"name","description","input_schema"}). nil or null tools, or none the conversion keeps,
// give nil.
//
// The shape is the one llama.cpp hands every template whatever the request's shape
// (ggml-org/llama.cpp@0083bb18d6ac197bb463662c79569a8172811554:common/chat.cpp,
// common_chat_tools_parse_oaicompat then common_chat_tools_to_json_oaicompat): name,
// description ("" when absent), parameters ({} when absent), in that order, nothing else
// (strict is dropped). Its Responses conversion keeps only tools of type "function", and its
// Anthropic one converts every tool, input_schema as parameters
// (ggml-org/llama.cpp@03eb25f39343f1c9ecc6f85ca4f9796a6ab7b230:tools/server/server-chat.cpp,
// server_chat_convert_responses_to_chatcmpl and server_chat_convert_anthropic_to_oai). vLLM
// renders Anthropic tools in the same order but with a null description when there is none
// (vllm-project/vllm@0001948bc76939369ca855c90b36d81256477e85:
// vllm/entrypoints/anthropic/serving.py, _convert_tools into FunctionDefinition, whose fields
// are name, description, parameters), and a Responses tool as the whole of openai-python's
// FunctionTool dumped, nulls included ({"name","parameters","strict","type","description"}
// at vllm-project/vllm@d0ac57910c16de107f5758d0e530b638d8b0f91b:
// vllm/entrypoints/openai/responses/utils.py, convert_tool_responses_to_completions_format),
// so a template that prints the tools with tojson gets a few more tokens from vLLM than from
// llama.cpp there. A parameters object keeps its logged key order in both, and here.
func ToolsAsChat(api string, tools json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(tools)
	if len(t) == 0 || string(t) == "null" {
		return nil, nil
	}
	var schemaKey string
	switch api {
	case "chat":
		return tools, nil
	case "responses":
		schemaKey = "parameters"
	case "messages":
		schemaKey = "input_schema"
	default:
		return nil, fmt.Errorf("chat: tools of the %q API: want chat, responses or messages", api)
	}
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(t, &list); err != nil {
		return nil, fmt.Errorf("chat: %s tools: not an array of objects: %w", api, err)
	}
	out := []byte{'['}
	for i, tool := range list {
		if api == "responses" && !isString(tool["type"], "function") {
			continue // web_search, file_search, mcp...: no chat equivalent, skipped as llama.cpp does
		}
		fn, err := chatFunction(tool, schemaKey)
		if err != nil {
			return nil, fmt.Errorf("chat: %s tools[%d]: %w", api, i, err)
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, `{"type":"function","function":`...)
		out = append(append(out, fn...), '}')
	}
	if len(out) == 1 {
		return nil, nil
	}
	return append(out, ']'), nil
}

// chatFunction is one tool's {"name","description","parameters"}, its JSON as logged
// (compacted), the parameters read from schemaKey.
func chatFunction(tool map[string]json.RawMessage, schemaKey string) ([]byte, error) {
	name := bytes.TrimSpace(tool["name"])
	if len(name) == 0 || name[0] != '"' {
		return nil, fmt.Errorf("name: missing or not a string")
	}
	desc := bytes.TrimSpace(tool["description"])
	switch {
	case len(desc) == 0 || string(desc) == "null":
		desc = []byte(`""`)
	case desc[0] != '"':
		return nil, fmt.Errorf("description: not a string")
	}
	params := bytes.TrimSpace(tool[schemaKey])
	switch {
	case len(params) == 0 || string(params) == "null":
		params = []byte(`{}`)
	case params[0] != '{':
		return nil, fmt.Errorf("%s: not an object", schemaKey)
	}
	var b bytes.Buffer
	b.WriteString(`{"name":`)
	b.Write(name)
	b.WriteString(`,"description":`)
	b.Write(desc)
	b.WriteString(`,"parameters":`)
	if err := json.Compact(&b, params); err != nil {
		return nil, fmt.Errorf("%s: %w", schemaKey, err)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// isString reports whether raw is the JSON string s.
func isString(raw json.RawMessage, s string) bool {
	var v string
	return json.Unmarshal(raw, &v) == nil && v == s
}
