package requestlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/llm-replay/replay/trace"
)

// mixedLog is testdata/mixed-apis.jsonl: a gateway log of the five APIs, each body in the
// shape of its published reference (testdata/README.md cites them).
var mixedLog = filepath.Join("testdata", "mixed-apis.jsonl")

// mixedTemplates are the templates the log's chat-family prompts are checked under: Qwen3's,
// Llama-3's (which knows no tools: it renders tool turns as plain headers and ignores the
// definitions) and Llama-3.1-8B-Instruct's own (tools in the first user message).
var mixedTemplates = []string{"qwen3", "llama3", "llama3_1_tools"}

// mixedOptions are each line's options as the reader must give them with --keep-text: the
// members written here must equal the record's (trace.Options' JSON names), members not
// written must be absent, but for tools, response_format, tool_choice and body, compared
// elsewhere or as logged.
var mixedOptions = []string{
	`{"api":"chat","stream":true,"include_usage":true,"temperature":0.7,"top_p":0.9,"seed":42,"stop":["\n\n\n","END"],"logprobs":true,"top_logprobs":2,"max_tokens_field":"max_completion_tokens","max_tokens":256,"fields":{"user":"alice@example.com","top_k":20,"min_p":0.05,"repetition_penalty":1.1,"logit_bias":{"50256":-100}},"finish_reason":"stop"}`,
	`{"api":"chat","parallel_tool_calls":false,"max_tokens_field":"max_tokens","max_tokens":128,"finish_reason":"tool_calls"}`,
	`{"api":"chat","parallel_tool_calls":false,"max_tokens_field":"max_tokens","max_tokens":128,"finish_reason":"stop"}`,
	`{"api":"chat","temperature":0,"n":2,"presence_penalty":0.5,"frequency_penalty":0.25,"max_tokens_field":"max_tokens","max_tokens":200,"finish_reason":"stop"}`,
	`{"api":"chat","stream":true,"max_tokens_field":"max_tokens","max_tokens":2048,"status":499,"cancelled":true,"cancel_after_ms":812.5}`,
	`{"api":"chat","max_tokens_field":"max_tokens","max_tokens":16,"fields":{"metadata":{"tenant":"acme","team":"growth"},"service_tier":"auto"},"finish_reason":"stop"}`,
	`{"api":"completions","temperature":0.2,"stop":["\n\n"],"stop_string":true,"logprobs":true,"top_logprobs":3,"max_tokens_field":"max_tokens","max_tokens":24,"fields":{"echo":false,"suffix":null},"finish_reason":"stop"}`,
	`{"api":"completions","max_tokens_field":"max_tokens","max_tokens":8,"fields":{"best_of":1},"finish_reason":"length"}`,
	`{"api":"completions","stream":true,"include_usage":true,"max_tokens_field":"max_tokens","max_tokens":512,"cancelled":true,"cancel_after_ms":400}`,
	`{"api":"responses","temperature":0.8,"max_tokens_field":"max_output_tokens","max_tokens":300,"fields":{"store":true},"finish_reason":"stop"}`,
	`{"api":"responses","max_tokens_field":"max_output_tokens","max_tokens":300,"fields":{"store":true},"finish_reason":"stop"}`,
	`{"api":"responses","max_tokens_field":"max_output_tokens","max_tokens":40,"fields":{"reasoning":{"effort":"low"},"truncation":"auto"},"finish_reason":"length"}`,
	`{"api":"responses","parallel_tool_calls":false,"finish_reason":"tool_calls"}`,
	`{"api":"responses","parallel_tool_calls":false,"finish_reason":"stop"}`,
	`{"api":"responses","stream":true,"top_p":0.95,"top_logprobs":2,"fields":{"store":false,"include":["reasoning.encrypted_content"],"metadata":{"ticket":"T-1042"},"user":"bob@example.com","prompt_cache_key":"bob-trip"},"finish_reason":"stop"}`,
	`{"api":"responses","stream":true,"max_tokens_field":"max_output_tokens","max_tokens":1000,"fields":{"background":false},"status":499,"cancelled":true,"cancel_after_ms":350}`,
	`{"api":"messages","temperature":0.5,"top_p":0.9,"stop":["###"],"max_tokens_field":"max_tokens","max_tokens":150,"fields":{"top_k":40,"metadata":{"user_id":"user-7731"}},"cached_tokens":0,"finish_reason":"stop"}`,
	`{"api":"messages","max_tokens_field":"max_tokens","max_tokens":1024,"fields":{"thinking":{"type":"enabled","budget_tokens":2048}},"cached_tokens":0,"finish_reason":"tool_calls"}`,
	`{"api":"messages","max_tokens_field":"max_tokens","max_tokens":1024,"fields":{"thinking":{"type":"enabled","budget_tokens":2048}},"cached_tokens":420,"finish_reason":"stop"}`,
	`{"api":"messages","stream":true,"stop":["\n\n"],"max_tokens_field":"max_tokens","max_tokens":20,"finish_reason":"length"}`,
	`{"api":"messages","max_tokens_field":"max_tokens","max_tokens":300,"finish_reason":"stop"}`,
	`{"api":"messages","stream":true,"max_tokens_field":"max_tokens","max_tokens":4096,"fields":{"service_tier":"auto"},"cancelled":true,"cancel_after_ms":95}`,
	`{"api":"embeddings","fields":{"encoding_format":"float"}}`,
	`{"api":"embeddings","fields":{"dimensions":256,"user":"carol@example.com"},"input_list":true}`,
	`{"api":"embeddings","input_list":true,"input_ids":true}`,
	`{"api":"embeddings","fields":{"encoding_format":"base64"},"input_list":true,"input_ids":true}`,
	`{"api":"embeddings"}`,
	`{"api":"chat","stream":true,"include_usage":true,"max_tokens_field":"max_completion_tokens","max_tokens":64,"fields":{"user":"alice@example.com"},"finish_reason":"stop"}`,
	`{"api":"responses","temperature":0.3,"max_tokens_field":"max_output_tokens","max_tokens":120,"finish_reason":"stop"}`,
	`{"api":"responses","max_tokens_field":"max_output_tokens","max_tokens":120,"finish_reason":"stop"}`,
	`{"api":"messages","temperature":0.5,"max_tokens_field":"max_tokens","max_tokens":200,"finish_reason":"stop"}`,
	`{"api":"chat","parallel_tool_calls":true,"max_tokens_field":"max_tokens","max_tokens":64,"finish_reason":"tool_calls"}`,
	`{"api":"embeddings","fields":{"add_special_tokens":false}}`,
}

// mixedThoughts are the thinking blocks of the log's Anthropic answers, by line: Anthropic's
// usage does not break them out, so the reasoning count is their text counted.
var mixedThoughts = map[int64]string{18: "I need the forecast for Braga."}

// mixedSessions are the log's conversations, each line's turn its place in the list: chat
// turns found by their messages, Responses chains by previous_response_id, Anthropic turns by
// their messages. Every other line is a conversation of its own.
var mixedSessions = [][]int64{{1, 28}, {2, 3}, {10, 11, 12}, {13, 14}, {17, 31}, {18, 19}, {29, 30}}

// mixedLines decodes the log's lines, for the independent expectations.
func mixedLines(t *testing.T) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(mixedLog)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var v map[string]any
		dec := json.NewDecoder(bytes.NewReader(l))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if len(out) != len(mixedOptions) {
		t.Fatalf("%d lines, %d expected options", len(out), len(mixedOptions))
	}
	return out
}

// referencePrompts reads testdata/mixed-apis/NAME.jsonl, render.py's renderings: line -> prompt.
func referencePrompts(t *testing.T, name string) map[int64]string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "mixed-apis", name+".jsonl"))
	if err != nil {
		t.Fatalf("%v (regenerate with requestlog/testdata/mixed-apis/render.py)", err)
	}
	defer f.Close()
	out := map[int64]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct {
			Line          int64
			Prompt, Error string
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.Error != "" {
			t.Fatalf("%s: %s: %v", name, sc.Text(), err)
		}
		out[r.Line] = r.Prompt
	}
	return out
}

// TestMixedAPIs: every line of the mixed log gives its API, its options as the table says
// (with --keep-text), and its prompt count: chat, Responses and Messages conversations equal
// the independent reference's rendering (render.py) encoded, under Qwen3's, Llama-3's and
// Llama-3.1's templates; completions and embeddings inputs the text encoded with the
// tokenizer's specials (unless the body turns them off) or the ids as they are.
func TestMixedAPIs(t *testing.T) {
	lines := mixedLines(t)
	for _, name := range mixedTemplates {
		t.Run(name, func(t *testing.T) {
			m := loadModel(t, name)
			ref := referencePrompts(t, name)
			data, _ := os.ReadFile(mixedLog)
			kept, counts, err := readWith(t, m, string(data), Options{KeepText: true})
			if err != nil || len(kept) != len(lines) {
				t.Fatalf("%d records of %d lines: %v", len(kept), len(lines), err)
			}
			for i, r := range kept {
				opts := mixedOptions[i]
				if thought, ok := mixedThoughts[r.Line]; ok { // counted with this tokenizer
					opts = strings.TrimSuffix(opts, "}") + `,"reasoning_tokens":` + strconv.Itoa(m.tok.Count(thought)) + "}"
				}
				checkMixedOptions(t, r.Line, r.Options, opts)
				want, inputs := expectedPromptTokens(t, m, lines[i], ref[r.Line])
				if r.PromptTokens != want || !reflect.DeepEqual(r.Options.Inputs, inputs) {
					t.Errorf("line %d (%s): %d prompt tokens (inputs %v), want %d (%v)", r.Line, r.Options.API, r.PromptTokens, r.Options.Inputs, want, inputs)
				}
				if trace.ChatFamily(r.Options.API) && r.Prompt != ref[r.Line] {
					t.Errorf("line %d: the prompt differs from the reference's:\n got %q\nwant %q", r.Line, r.Prompt, ref[r.Line])
				}
			}
			checkMixedSessions(t, kept)
			if name == "qwen3" && (counts.UsageChecked != 15 || counts.UsageMismatches != 6) {
				// Six Anthropic lines were answered by Claude, whose counts are its own.
				t.Errorf("usage checked %d, mismatched %d; want 15 and 6 (the Messages lines)", counts.UsageChecked, counts.UsageMismatches)
			}
		})
	}
}

// expectedPromptTokens is a line's prompt count from the line itself: the reference
// rendering encoded (the template holds the BOS text), a completion prompt with specials or
// its ids, an embeddings request's inputs (their counts are also returned).
func expectedPromptTokens(t *testing.T, m model, line map[string]any, rendered string) (int, []int) {
	t.Helper()
	body := line["request"].(map[string]any)
	if _, isChat := body["messages"]; isChat || rendered != "" {
		return len(m.tok.Encode(rendered, false)), nil
	}
	if p, ok := body["prompt"]; ok {
		if s, ok := p.(string); ok {
			return len(m.tok.Encode(s, true)), nil
		}
		return len(p.([]any)), nil
	}
	special := body["add_special_tokens"] != false
	var inputs []int
	count := func(v any) {
		switch x := v.(type) {
		case string:
			inputs = append(inputs, len(m.tok.Encode(x, special)))
		case []any:
			inputs = append(inputs, len(x))
		}
	}
	switch in := body["input"].(type) {
	case string:
		count(in)
	case []any:
		if _, ids := in[0].(json.Number); ids {
			count(in)
			break
		}
		for _, x := range in {
			count(x)
		}
	}
	sum := 0
	for _, n := range inputs {
		sum += n
	}
	return sum, inputs
}

// checkMixedOptions compares a record's options with the table's, member by member; tools,
// tool_choice, response_format, inputs and body are left to the other checks.
func checkMixedOptions(t *testing.T, line int64, o *trace.Options, want string) {
	t.Helper()
	var got, w map[string]json.RawMessage
	raw, _ := json.Marshal(o)
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("line %d: the table's options: %v", line, err)
	}
	for _, k := range []string{"tools", "tool_choice", "response_format", "inputs", "body"} {
		delete(got, k)
	}
	if _, ok := w["stream"]; !ok {
		w["stream"] = json.RawMessage("false") // the APIs' default, which the reader writes down
	}
	if len(got) != len(w) {
		t.Errorf("line %d: options %s, want %s", line, raw, want)
		return
	}
	for k, v := range w {
		if !jsonEqual(got[k], v) {
			t.Errorf("line %d: %s is %s, want %s", line, k, got[k], v)
		}
	}
}

// jsonEqual compares two JSON texts as values, object members in order.
func jsonEqual(a, b json.RawMessage) bool {
	var x, y bytes.Buffer
	return json.Compact(&x, a) == nil && json.Compact(&y, b) == nil && bytes.Equal(x.Bytes(), y.Bytes())
}

// checkMixedSessions: the lines of each conversation share a session, in turn order, and no
// two conversations share one.
func checkMixedSessions(t *testing.T, reqs []Request) {
	t.Helper()
	seen := map[string]int64{}
	grouped := map[int64]bool{}
	for _, g := range mixedSessions {
		first := reqs[g[0]-1]
		for turn, l := range g {
			r := reqs[l-1]
			grouped[l] = true
			if r.SessionID != first.SessionID || r.Turn != turn {
				t.Errorf("line %d: session %s turn %d, want line %d's %s turn %d", l, r.SessionID, r.Turn, g[0], first.SessionID, turn)
			}
		}
	}
	for _, r := range reqs {
		if prev, dup := seen[r.SessionID]; dup && !(grouped[r.Line] && grouped[prev]) {
			t.Errorf("lines %d and %d share session %s", prev, r.Line, r.SessionID)
		}
		if _, dup := seen[r.SessionID]; !dup {
			seen[r.SessionID] = r.Line
		}
	}
}

// TestMixedAPIsWithoutText: read without --keep-text, no byte of the users' identities or of
// the tools' and schemas' descriptions reaches the options; the tools, the formats and the
// carried fields keep their shape (names, key order, same-length text), and the counts are
// those kept with text. The fields carried and dropped are counted by name.
func TestMixedAPIsWithoutText(t *testing.T) {
	m := loadModel(t, "qwen3")
	data, _ := os.ReadFile(mixedLog)
	plain, counts, err := readWith(t, m, string(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	kept, _, _ := readWith(t, m, string(data), Options{KeepText: true})
	for i, r := range plain {
		raw, _ := json.Marshal(r.Options)
		for _, secret := range []string{"example.com", "user-7731", "T-1042", "bob-trip", "acme", "Get the current weather", "City name", "One thing to see", "The restaurant's name"} {
			if strings.Contains(string(raw), secret) {
				t.Errorf("line %d: %q in the options %s", r.Line, secret, raw)
			}
		}
		k := kept[i]
		if r.PromptTokens != k.PromptTokens || r.Options.Body != nil || r.Prompt != "" {
			t.Errorf("line %d: %d prompt tokens (%d kept), body %s", r.Line, r.PromptTokens, k.PromptTokens, r.Options.Body)
		}
		sameShape(t, int(r.Line), m.tok, r.Options.Tools, k.Options.Tools)
		sameShape(t, int(r.Line), m.tok, r.Options.ResponseFormat, k.Options.ResponseFormat)
		sameFieldNames(t, int(r.Line), r.Options.Fields, k.Options.Fields)
	}
	wantCarried := map[string]int64{"add_special_tokens": 1, "background": 1, "best_of": 1, "dimensions": 1, "echo": 1,
		"encoding_format": 2, "include": 1, "logit_bias": 1, "metadata": 3, "min_p": 1, "prompt_cache_key": 1, "reasoning": 1,
		"repetition_penalty": 1, "service_tier": 2, "store": 3, "suffix": 1, "thinking": 2, "top_k": 2, "truncation": 1, "user": 4}
	if !reflect.DeepEqual(counts.CarriedFields, wantCarried) {
		t.Errorf("carried %v, want %v", counts.CarriedFields, wantCarried)
	}
	if want := map[string]int64{"stream_options.continuous_usage_stats": 1}; !reflect.DeepEqual(counts.DroppedFields, want) {
		t.Errorf("dropped %v, want %v", counts.DroppedFields, want)
	}
	// The same user gets the same pseudonym in every line, and different users different ones.
	if a, b, c := fieldOf(plain[0], "user"), fieldOf(plain[27], "user"), fieldOf(plain[14], "user"); a != b || a == c || a == "" {
		t.Errorf("user pseudonyms %s, %s, %s", a, b, c)
	}
}

// fieldOf is a carried field's JSON text.
func fieldOf(r Request, k string) string {
	ms, _ := orderedMembers(r.Options.Fields)
	return string(get(ms, k))
}

// TestMixedAPIsTools: each API's tools stay in their own shape in the options, and what the
// template gets is chat's shape (so the counts above include them): spot checks of the raw
// options the table leaves out.
func TestMixedAPIsTools(t *testing.T) {
	m := loadModel(t, "qwen3")
	data, _ := os.ReadFile(mixedLog)
	kept, _, err := readWith(t, m, string(data), Options{KeepText: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		line             int
		tools, choice    string
		format, contains string
	}{
		{2, `"function":{"name":"get_weather"`, `"auto"`, "", ""},
		{4, "", "", `{"type":"json_schema","json_schema":{"name":"booking"`, `"The restaurant's name"`},
		{12, "", "", `{"format":{"type":"json_schema","name":"itinerary"`, `"verbosity":"low"`},
		{13, `{"type":"function","name":"get_weather"`, `"required"`, "", ""},
		{18, `{"name":"get_weather","description":"Get the current weather in a given location","input_schema"`, `{"type":"auto","disable_parallel_tool_use":true}`, "", ""},
		{21, `"name":"get_time"`, `{"type":"tool","name":"get_time"}`, "", ""},
		{29, "", "", `{"format":{"type":"json_object"}}`, ""},
		{32, `"name":"buy_ticket"`, `{"type":"function","function":{"name":"buy_ticket"}}`, "", ""},
	} {
		o := kept[c.line-1].Options
		if !strings.Contains(string(o.Tools), c.tools) || (c.choice != "" && string(o.ToolChoice) != c.choice) ||
			!strings.HasPrefix(string(o.ResponseFormat), c.format) || !strings.Contains(string(o.ResponseFormat), c.contains) {
			t.Errorf("line %d: tools %s, tool_choice %s, format %s", c.line, o.Tools, o.ToolChoice, o.ResponseFormat)
		}
		if c.format != "" && !o.Structured() {
			t.Errorf("line %d: a structured answer not reported as one", c.line)
		}
	}
}

// TestAPIErrors: a line whose API cannot be told, or whose body its API cannot read, is an
// error naming the field.
func TestAPIErrors(t *testing.T) {
	for line, field := range map[string]string{
		`{"timestamp":1,"request":{"input":"hi"},"response":{"usage":{"prompt_tokens":1}}}`:                                                                    `"request.input"`,
		`{"timestamp":1,"path":"/v1/audio/speech","request":{"input":"hi"}}`:                                                                                   `"path"`,
		`{"timestamp":1,"path":7,"request":{"input":"hi"}}`:                                                                                                    `"path"`,
		`{"timestamp":1,"path":"/v1/chat/completions","request":{"input":"hi"}}`:                                                                               `"request.messages"`,
		`{"timestamp":1,"path":"/v1/responses","request":{"previous_response_id":"resp_x","input":"hi"},"response":{"output":[]}}`:                             `"request.previous_response_id"`,
		`{"timestamp":1,"path":"/v1/responses","request":{"input":[{"type":"item_reference","id":"x"}]},"response":{"output":[]}}`:                             `"request.input[0].type"`,
		`{"timestamp":1,"path":"/v1/responses","request":{"input":[{"type":"function_call","name":"f"}]},"response":{"output":[]}}`:                            `"request.input[0].call_id"`,
		`{"timestamp":1,"path":"/v1/responses","request":{"input":"hi","max_output_tokens":-1},"response":{"output":[]}}`:                                      `"request.max_output_tokens"`,
		`{"timestamp":1,"request":{"system":"s","messages":[{"role":"user","content":[{"type":"image","source":{"type":"url"}}]}]}}`:                           `"request.messages[0].content[0].source.url"`,
		`{"timestamp":1,"request":{"messages":[{"role":"assistant","content":[{"type":"tool_result","tool_use_id":"t"}]}]}}`:                                   `"request.messages[0].content[0]"`,
		`{"timestamp":1,"path":"/v1/messages","request":{"messages":[{"role":"user","content":"x"}],"tools":[{"description":"d"}]},"response":{"content":[]}}`: `"request.tools"`,
		`{"timestamp":1,"path":"/v1/embeddings","request":{"input":[]}}`:                                                                                       `"request.input"`,
		`{"timestamp":1,"path":"/v1/embeddings","request":{"input":["a",1]}}`:                                                                                  `"request.input[1]"`,
		`{"timestamp":1,"path":"/v1/embeddings","request":{"input":[[1,2],[-3]]}}`:                                                                             `"request.input[1][0]"`,
	} {
		_, _, err := readWith(t, loadModel(t, "qwen3"), line+"\n", Options{})
		if err == nil || !strings.Contains(err.Error(), "log.jsonl:1:") || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: %v, want an error naming %s", line, err, field)
		}
	}
}

// TestAPIPathMapped: --map path=FIELD finds the path where the log keeps it; a path's query
// is ignored and the API it names wins over the body's shape.
func TestAPIPathMapped(t *testing.T) {
	m := loadModel(t, "qwen3")
	log := `{"timestamp":1,"meta":{"url":"/v1/embeddings?x=1"},"request":{"input":"hi"}}
{"timestamp":2,"meta":{"url":"/v1/responses/"},"request":{"input":"hi"},"response":{"output":[{"type":"message","content":[{"type":"output_text","text":"hello"}]}]}}
`
	reqs, _, err := readWith(t, m, log, Options{Map: map[string]string{"path": "meta.url"}})
	if err != nil || len(reqs) != 2 {
		t.Fatalf("%d records: %v", len(reqs), err)
	}
	if reqs[0].Options.API != trace.APIEmbeddings || reqs[1].Options.API != trace.APIResponses || reqs[1].OutputTokens != m.tok.Count("hello") {
		t.Errorf("APIs %s and %s, output %d", reqs[0].Options.API, reqs[1].Options.API, reqs[1].OutputTokens)
	}
	for p, want := range map[string]string{"https://h/v1/chat/completions?a=b#c": "chat", "completions": "completions",
		"/openai/v1/messages": "messages", "/v1/embeddings/": "embeddings", "/v1/messages/count_tokens": ""} {
		if got, _ := apiFromPath(p); got != want {
			t.Errorf("%s: %q, want %q", p, got, want)
		}
	}
}

// TestReasoningCounted: an assistant turn's thinking reaches the template as
// reasoning_content, which Qwen3's renders in the turns after the last user query: two
// Anthropic tool loops that differ only in their thinking have different counts (the prompt
// cache tells them apart), and a longer thought more tokens.
func TestReasoningCounted(t *testing.T) {
	m := loadModel(t, "qwen3")
	line := func(thought string) string {
		return `{"timestamp":1,"path":"/v1/messages","request":{"max_tokens":9,"messages":[{"role":"user","content":"Time in Lisbon?"},` +
			`{"role":"assistant","content":[{"type":"thinking","thinking":"` + thought + `","signature":"s"},{"type":"tool_use","id":"t1","name":"now","input":{"tz":"Europe/Lisbon"}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"10:00"}]}]},"response":{"content":[{"type":"text","text":"10:00"}]}}` + "\n"
	}
	reqs, _, err := readWith(t, m, line("I should ask the clock.")+line("I should ask the clock tool, which knows every timezone there is."), Options{})
	if err != nil || len(reqs) != 2 {
		t.Fatalf("%d records: %v", len(reqs), err)
	}
	if reqs[1].PromptTokens <= reqs[0].PromptTokens {
		t.Errorf("prompt tokens %d with the longer thought, %d with the shorter", reqs[1].PromptTokens, reqs[0].PromptTokens)
	}
}
