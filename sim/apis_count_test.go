package sim

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// One conversation (a system prompt, a question, an assistant turn that says something and
// calls a tool, the tool's answer, a follow-up) with one tool, in each API's own shape: chat's
// (OpenAI's chat reference), the Responses API's items and flat tool (openai-python's
// response_input_item_param.py, function_tool_param.py), Anthropic's blocks and tool
// (anthropic-sdk-python's message_param.py, tool_use_block_param.py,
// tool_result_block_param.py, tool_param.py).
const (
	sameChat = `{"max_tokens":3,"messages":[
		{"role":"system","content":"You answer briefly."},
		{"role":"user","content":"What is the weather in Paris?"},
		{"role":"assistant","content":"Let me check.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},
		{"role":"tool","tool_call_id":"call_1","content":"sunny, 24C"},
		{"role":"user","content":[{"type":"text","text":"Thanks!"}]}],
		"tools":[{"type":"function","function":{"name":"get_weather","description":"Weather of a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}]}`
	sameResponses = `{"max_output_tokens":3,"instructions":"You answer briefly.","input":[
		{"role":"user","content":"What is the weather in Paris?"},
		{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Let me check.","annotations":[]}]},
		{"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},
		{"type":"function_call_output","call_id":"call_1","output":"sunny, 24C"},
		{"role":"user","content":[{"type":"input_text","text":"Thanks!"}]}],
		"tools":[{"type":"function","name":"get_weather","description":"Weather of a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"strict":false}]}`
	sameMessages = `{"max_tokens":3,"system":"You answer briefly.","messages":[
		{"role":"user","content":"What is the weather in Paris?"},
		{"role":"assistant","content":[{"type":"text","text":"Let me check."},{"type":"tool_use","id":"call_1","name":"get_weather","input":{"city":"Paris"}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"sunny, 24C"},{"type":"text","text":"Thanks!"}]}],
		"tools":[{"name":"get_weather","description":"Weather of a city","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}]}`
)

// decoded is JSON as a template sees it: decoded, whatever its spacing and key order.
func decoded(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	if len(raw) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return v
}

// TestSameConversationCountsAlike: the same conversation sent to chat, the Responses API and
// the Messages API reaches the ChatCounter hook as the same messages and tools (calls and
// tools compared as a template reads them, decoded), so its prompt counts alike in all three:
// with the hook, and with the default count.
func TestSameConversationCountsAlike(t *testing.T) {
	bodies := map[string]string{"/v1/chat/completions": sameChat, "/v1/responses": sameResponses, "/v1/messages": sameMessages}
	for _, hook := range []bool{true, false} {
		cfg := fastConfig()
		if hook {
			// A count of what a template reads: the decoded tools and calls, each message's
			// role, content and tool_call_id.
			cfg.ChatCounter = func(msgs []Message, tools json.RawMessage) (int, error) {
				n := 1 + len(fmt.Sprint(anyOf(tools)))
				for _, m := range msgs {
					n += 10 + len(m.Role) + len(m.Content) + len(m.ToolCallID) + len(fmt.Sprint(anyOf(m.ToolCalls)))
				}
				return n, nil
			}
		}
		_, url := startServer(t, cfg)
		counts := map[string]int{}
		for path, body := range bodies {
			res := postEvents(t, url, path, json.RawMessage(body))
			if res.status != 200 {
				t.Fatalf("%s: status %d %s", path, res.status, res.body)
			}
			u := decodeObject(t, res.body).obj("usage")
			switch path {
			case "/v1/chat/completions":
				counts[path] = u.num("prompt_tokens")
			case "/v1/responses":
				counts[path] = u.num("input_tokens")
			default:
				counts[path] = anthropicInput(u)
			}
		}
		if c := counts["/v1/chat/completions"]; c <= 0 || counts["/v1/responses"] != c || counts["/v1/messages"] != c {
			t.Errorf("hook=%v: prompt tokens %v, want all equal", hook, counts)
		}
	}
}

// TestConversionsMatchChat: each API's body becomes chat's messages and tools for the same
// conversation, compared as a template reads them.
func TestConversionsMatchChat(t *testing.T) {
	chat, err := ParseRequest([]byte(sameChat), true, 16)
	if err != nil {
		t.Fatal(err)
	}
	want := normalized(t, chat)
	for name, parse := range map[string]func([]byte, int) (Request, error){
		"responses": parseResponsesRequest, "messages": parseMessagesRequest,
	} {
		body := sameResponses
		if name == "messages" {
			body = sameMessages
		}
		r, err := parse([]byte(body), 16)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := normalized(t, r); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %v\nwant %v", name, got, want)
		}
		if !r.Chat || r.MaxTokens != 3 || r.N != 1 || !r.Structured || r.Content != nil {
			t.Errorf("%s: %+v", name, r)
		}
	}
}

// normalized is what a template reads of r's conversation: each message's role, content,
// name, tool_call_id and calls (decoded), and the tools (decoded).
func normalized(t *testing.T, r Request) []any {
	t.Helper()
	out := []any{decoded(t, r.Tools)}
	for _, m := range r.Messages {
		out = append(out, []any{m.Role, m.Content, m.Name, m.ToolCallID, decoded(t, m.ToolCalls)})
	}
	return out
}

// anyOf is raw decoded, nil when it is not JSON (for the hook, which runs off the test's
// goroutine).
func anyOf(raw json.RawMessage) any {
	var v any
	json.Unmarshal(raw, &v)
	return v
}

// TestConversionEdges: the conversions' own rules, as vLLM's: function calls join the assistant
// turn before them (and a message after a calls-only turn joins it), reasoning items carry
// nothing; Anthropic's system messages join the system prompt, a user turn of tool results
// alone is only its tool messages, thinking blocks carry nothing.
func TestConversionEdges(t *testing.T) {
	type msg struct{ Role, Content, ToolCallID, Calls string }
	call := func(id, name, args string) string {
		return `[{"id":"` + id + `","type":"function","function":{"name":"` + name + `","arguments":` + args + `}}]`
	}
	cases := []struct {
		name  string
		parse func([]byte, int) (Request, error)
		body  string
		want  []msg
	}{
		{"calls join", parseResponsesRequest, `{"input":[{"role":"user","content":"q"},{"type":"function_call","call_id":"a","name":"f","arguments":"{}"},{"type":"function_call","call_id":"b","name":"g","arguments":"{}"}]}`,
			[]msg{{"user", "q", "", ""}, {"assistant", "", "", `[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"b","type":"function","function":{"name":"g","arguments":"{}"}}]`}}},
		{"reasoning skipped", parseResponsesRequest, `{"input":[{"type":"reasoning","id":"r","summary":[]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"x"}]}]}`,
			[]msg{{"assistant", "x", "", ""}}},
		{"message joins calls", parseResponsesRequest, `{"input":[{"type":"function_call","call_id":"a","name":"f","arguments":"{}"},{"role":"assistant","content":"said"}]}`,
			[]msg{{"assistant", "said", "", call("a", "f", `"{}"`)}}},
		{"developer kept", parseResponsesRequest, `{"instructions":"","input":[{"role":"developer","content":[{"type":"input_text","text":"d"}]}]}`,
			[]msg{{"developer", "d", "", ""}}},
		{"system joins", parseMessagesRequest, `{"max_tokens":1,"system":"a","messages":[{"role":"system","content":"b"},{"role":"user","content":"q"}]}`,
			[]msg{{"system", "ab", "", ""}, {"user", "q", "", ""}}},
		{"tool results alone", parseMessagesRequest, `{"max_tokens":1,"messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"tool_use","id":"t","name":"f","input":{ "a" : 1 }}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"r"}]}]}]}`,
			[]msg{{"assistant", "", "", call("t", "f", `"{\"a\":1}"`)}, {"tool", "r", "t", ""}}},
	}
	for _, tc := range cases {
		r, err := tc.parse([]byte(tc.body), 4)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got []msg
		for _, m := range r.Messages {
			got = append(got, msg{m.Role, m.Content, m.ToolCallID, string(m.ToolCalls)})
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
}
