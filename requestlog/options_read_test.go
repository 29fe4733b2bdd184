package requestlog

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/llm-replay/replay/ingest"
)

// TestReadOptions: a hand-written line of each kind gives the options and outcome it says:
// a cancelled line without usage (499 with duration_ms, or cancelled with end_timestamp, its
// partial text counted), the status from the line or the response, stop as a list, a
// completion's logprobs count, max_completion_tokens over max_tokens, n > 1 counting every
// choice, tools and tool turns rendered, other fields carried as logged and counted, and what
// is still dropped counted.
func TestReadOptions(t *testing.T) {
	log := `{"timestamp":0,"status":499,"duration_ms":1500.5,"request":{"prompt":"Once upon a time","stream":true,"stream_options":{"include_usage":true,"extra":1},"logprobs":3},"response":{}}
{"timestamp":1,"cancelled":true,"end_timestamp":3.25,"request":{"messages":[{"role":"user","content":"Hi"}],"stop":"END","max_tokens":5,"max_completion_tokens":9},"response":{"choices":[{"message":{"content":"Hello there"}}]}}
{"timestamp":4,"status":"success","request":{"prompt":"A","n":2,"seed":7,"temperature":0,"frobnicate":true},"response":{"status_code":200,"choices":[{"text":"one two","finish_reason":"length"},{"text":"three four five"}]}}
{"timestamp":5,"request":{"messages":[{"role":"user","content":"Weather?"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},{"role":"tool","tool_call_id":"c1","name":"get_weather","content":"sunny"}],"tools":[{"type":"function","function":{"name":"get_weather","description":"Get the weather for a city","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}],"tool_choice":"auto"},"response":{"usage":{"completion_tokens":4},"choices":[{"message":{"content":"Sunny."},"finish_reason":"stop"}]}}
`
	m := loadModel(t, "qwen3")
	reqs, counts, err := readWith(t, m, log, Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := reqs[0].Options
	if o.API != "completions" || !o.Cancelled || o.Status != 499 || o.CancelAfterMS != 1500.5 || reqs[0].OutputTokens != 0 ||
		!*o.Stream || !*o.IncludeUsage || !*o.Logprobs || *o.TopLogprobs != 3 {
		t.Errorf("line 1: %+v, output %d", o, reqs[0].OutputTokens)
	}
	o = reqs[1].Options
	if o.API != "chat" || !o.Cancelled || o.Status != 0 || o.CancelAfterMS != 2250 || o.Stop[0] != "END" || o.MaxTokensField != "max_completion_tokens" || o.MaxTokens != 9 ||
		reqs[1].OutputTokens != m.tok.Count("Hello there") {
		t.Errorf("line 2: %+v, output %d", o, reqs[1].OutputTokens)
	}
	o = reqs[2].Options
	if o.N != 2 || *o.Seed != 7 || *o.Temperature != 0 || o.Status != 200 || o.FinishReason != "length" || string(o.Fields) != `{"frobnicate":true}` ||
		reqs[2].OutputTokens != m.tok.Count("one two")+m.tok.Count("three four five") {
		t.Errorf("line 3: %+v, output %d", o, reqs[2].OutputTokens)
	}
	o = reqs[3].Options
	if string(o.ToolChoice) != `"auto"` || strings.Contains(string(o.Tools), "weather for") || !strings.Contains(string(o.Tools), `"name":"get_weather"`) {
		t.Errorf("line 4: %+v (tools %s)", o, o.Tools)
	}
	if got := counts.CarriedFieldsText(); got != "frobnicate 1" {
		t.Errorf("carried fields %q", got)
	}
	if got := counts.DroppedFieldsText(); got != "max_tokens 1, stream_options.extra 1" {
		t.Errorf("dropped fields %q", got)
	}
	// The tool turns and the tools are rendered: the count is more than the messages alone.
	plain, _, err := readWith(t, m, `{"timestamp":5,"request":{"messages":[{"role":"user","content":"Weather?"},{"role":"assistant","content":""},{"role":"tool","content":"sunny"}]},"response":{"usage":{"completion_tokens":4}}}`+"\n", Options{})
	if err != nil || reqs[3].PromptTokens <= plain[0].PromptTokens+10 {
		t.Errorf("with tools and a call %d prompt tokens, without %d (%v)", reqs[3].PromptTokens, plain[0].PromptTokens, err)
	}
	kept, _, err := readWith(t, m, log, Options{KeepText: true})
	if err != nil || !strings.Contains(string(kept[3].Options.Tools), "weather for a city") || kept[3].Options.Body == nil {
		t.Errorf("kept text: %+v, %v", kept[3].Options, err)
	}
}

// readWith reads log text with model m.
func readWith(t *testing.T, m model, log string, opts Options) ([]Request, Counts, error) {
	t.Helper()
	opts.Tokenizer, opts.Chat, opts.HashKey = m.tok, m.chat, testKey
	r, err := NewReader(strings.NewReader(log), "log.jsonl", opts)
	if err != nil {
		return nil, Counts{}, err
	}
	var out []Request
	for {
		req, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, r.Counts(), nil
		}
		if err != nil {
			return out, r.Counts(), err
		}
		out = append(out, req)
	}
}

// TestReadOptionErrors: a bad option or outcome field is the line's error, naming it.
func TestReadOptionErrors(t *testing.T) {
	for line, field := range map[string]string{
		`{"timestamp":1,"request":{"prompt":"a","temperature":"hot"},"response":{"usage":{"completion_tokens":1}}}`:                                                 `"request.temperature"`,
		`{"timestamp":1,"request":{"prompt":"a","stop":[1]},"response":{"usage":{"completion_tokens":1}}}`:                                                          `"request.stop"`,
		`{"timestamp":1,"request":{"prompt":"a","stream":"yes"},"response":{"usage":{"completion_tokens":1}}}`:                                                      `"request.stream"`,
		`{"timestamp":1,"request":{"prompt":"a","tools":{"x":1}},"response":{"usage":{"completion_tokens":1}}}`:                                                     `"request.tools"`,
		`{"timestamp":1,"request":{"prompt":"a","response_format":"json"},"response":{"usage":{"completion_tokens":1}}}`:                                            `"request.response_format"`,
		`{"timestamp":1,"status":1234,"request":{"prompt":"a"},"response":{"usage":{"completion_tokens":1}}}`:                                                       `"status"`,
		`{"timestamp":1,"status":499,"duration_ms":-3,"request":{"prompt":"a"}}`:                                                                                    `"duration_ms"`,
		`{"timestamp":5,"cancelled":true,"end_timestamp":2,"request":{"prompt":"a"}}`:                                                                               `"end_timestamp"`,
		`{"timestamp":1,"request":{"messages":[{"role":"assistant","tool_calls":[{"function":{"arguments":"{}"}}]}]},"response":{"usage":{"completion_tokens":1}}}`: `"request.messages[0].tool_calls[0].function.name"`,
		`{"timestamp":1,"request":{"messages":[{"role":"tool","tool_call_id":5,"content":"x"}]},"response":{"usage":{"completion_tokens":1}}}`:                      `"request.messages[0].tool_call_id"`,
	} {
		_, _, err := readAll(t, line+"\n", Options{})
		var re *ingest.RowError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), "log.jsonl:1:") || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: %v, want an error naming %s", line, err, field)
		}
	}
}
