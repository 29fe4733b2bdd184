package chat

import (
	"encoding/json"
	"testing"
)

// TestToolsAsChat: Responses and Anthropic tools come out in the chat API's shape as
// llama.cpp hands them to templates (ggml-org/llama.cpp@0083bb18d6ac197bb463662c79569a8172811554:
// common/chat.cpp, common_chat_tools_to_json_oaicompat): name, description ("" when absent),
// parameters ({} when absent), nothing else; a Responses tool of another type than function
// is skipped (server-chat.cpp at 03eb25f39343f1c9ecc6f85ca4f9796a6ab7b230); a schema keeps
// its key order. The inputs are shaped as the APIs' references define them
// (https://platform.openai.com/docs/api-reference/responses/create, tools;
// https://docs.anthropic.com/en/api/messages, tools).
func TestToolsAsChat(t *testing.T) {
	for _, c := range []struct {
		api, in, want string
	}{
		{"responses", `[{"type":"function","name":"get_weather","description":"Weather now","parameters":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"number"}},"required":["z"]},"strict":true},{"type":"web_search_preview"},{"type":"function","name":"ping","strict":false}]`,
			`[{"type":"function","function":{"name":"get_weather","description":"Weather now","parameters":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"number"}},"required":["z"]}}},{"type":"function","function":{"name":"ping","description":"","parameters":{}}}]`},
		{"messages", `[{"name":"get_time","input_schema":{"type":"object","properties":{"tz":{"type":"string"}}},"cache_control":{"type":"ephemeral"}},{"description":"Search","name":"search","input_schema":{"type":"object"}}]`,
			`[{"type":"function","function":{"name":"get_time","description":"","parameters":{"type":"object","properties":{"tz":{"type":"string"}}}}},{"type":"function","function":{"name":"search","description":"Search","parameters":{"type":"object"}}}]`},
		{"chat", `[{"type":"function","function":{"name":"f"}}]`, `[{"type":"function","function":{"name":"f"}}]`},
		{"responses", `[{"type":"file_search"}]`, ``},
		{"messages", `null`, ``},
	} {
		got, err := ToolsAsChat(c.api, json.RawMessage(c.in))
		if err != nil || string(got) != c.want {
			t.Errorf("%s %s:\n got %s (%v)\nwant %s", c.api, c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ api, in string }{
		{"responses", `{"type":"function"}`},
		{"responses", `[{"type":"function","description":"no name"}]`},
		{"messages", `[{"name":"f","input_schema":"object"}]`},
		{"messages", `[{"name":"f","description":7}]`},
		{"embeddings", `[]`},
	} {
		if got, err := ToolsAsChat(c.api, json.RawMessage(c.in)); err == nil {
			t.Errorf("%s %s: %s, want an error", c.api, c.in, got)
		}
	}
}

// FuzzToolsAsChat: no input makes the conversion panic, and what it gives is a JSON array
// of chat function tools that renders. Seeds: testdata/fuzz/FuzzToolsAsChat.
func FuzzToolsAsChat(f *testing.F) {
	f.Add("responses", []byte(`[{"type":"function","name":"f","parameters":{"type":"object"}}]`))
	f.Add("messages", []byte(`[{"name":"f","description":"d","input_schema":{"type":"object"}}]`))
	f.Fuzz(func(t *testing.T, api string, data []byte) {
		out, err := ToolsAsChat(api, data)
		if err != nil || out == nil || api == "chat" {
			return
		}
		var tools []struct {
			Type     string `json:"type"`
			Function struct {
				Name       *string         `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		}
		if err := json.Unmarshal(out, &tools); err != nil || len(tools) == 0 {
			t.Fatalf("%s: %s: %v", api, out, err)
		}
		for _, tool := range tools {
			if tool.Type != "function" || tool.Function.Name == nil || len(tool.Function.Parameters) == 0 {
				t.Fatalf("%s: %s", api, out)
			}
		}
		if _, err := buildData([]Message{{Role: "user", Content: "x"}}, out); err != nil {
			t.Fatalf("%s: %s does not decode for templates: %v", api, out, err)
		}
	})
}
