package sim

import (
	"reflect"
	"strings"
	"testing"
)

// TestFastParseAgreesWithSlow runs both parsers over typical and tricky bodies: typical ones
// must take the fast path, and wherever it answers it must agree with encoding/json.
func TestFastParseAgreesWithSlow(t *testing.T) {
	cases := []struct {
		body     string
		chat     bool
		wantFast bool
	}{
		{`{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":"hi"}],"max_tokens":3,"stream":true,"stream_options":{"include_usage":true},"temperature":0.7,"top_p":1,"stop":null,"logit_bias":{"1":-100}}`, true, true},
		{`{"model":"m","prompt":[1,2,3],"max_tokens":2,"min_tokens":2,"ignore_eos":true,"n":1,"seed":5}`, false, true},
		{` { "prompt" : "caf\u00e9 \"q\" é" , "max_completion_tokens" : 7 } `, false, true},
		{`{"prompt":"a","max_tokens":0}`, false, true},           // fast answers with the shared error
		{`{"prompt":[1,-2]}`, false, true},                       // likewise
		{`{"messages":[],"max_tokens":1}`, true, true},           // likewise
		{`{"Model":"m","prompt":"a"}`, false, false},             // case-folded key
		{`{"model":"m","model":"n","prompt":"a"}`, false, false}, // duplicate
		{`{"prompt":"a","max_tokens":1.0}`, false, false},
		{`{"prompt":"a","max_tokens":null}`, false, true}, // null leaves a limit unset, as in encoding/json
		{`{"prompt":["a"]}`, false, false},
		{`{"prompt":[[1]]}`, false, false},
		{`{"prompt":[]}`, false, false},
		{`{"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}]}`, true, false},
		{`{"messages":[{"role":"user","content":null}]}`, true, false},
		{"{\"prompt\":\"\xff\"}", false, true},
		{`{"prompt":"a"} x`, false, false},
		{`null`, false, false},
		{`{"messages":[{"role":"user","content":"x"}],"prompt":{"anything":[1,"]"]}}`, true, true},
		{`{"prompt":"a","messages":[]}`, false, false},
		{`{"prompt":"a","stream_options":{"include_usage":true,"include_usage":false}}`, false, false},
		{`{"prompt":"a","\u006dax_tokens":5}`, false, true},
		{`{"prompt":"a","max_tokens":1000000000000000000}`, false, true},   // 19 digits, within int
		{`{"prompt":"a","max_tokens":10000000000000000000}`, false, false}, // beyond int64
		{`{"prompt":"a","x":"\q"}`, false, false},                          // invalid in a skipped field
		{`{"prompt":"a","x":[1,{"y":01}]}`, false, false},
		{"{\"prompt\":\"a\"}\n\t ", false, true},
		// the options: every kind the fast path reads, and what it leaves to encoding/json
		{optionsBody, true, true},
		{`{"prompt":"a","n":null,"temperature":null,"top_p":null,"presence_penalty":null,"frequency_penalty":null,"seed":null,"logprobs":null,"top_logprobs":null,"stop":null,"tools":null,"tool_choice":null,"response_format":null,"guided_json":null}`, false, true},
		{`{"prompt":"a","stop":"x","logprobs":3,"tools":[],"tool_choice":"none","seed":-1}`, false, true},
		{`{"prompt":"a","stop":[]}`, false, true},
		{`{"prompt":"a","tools":[{}],"tool_choice":"n\u006fne"}`, false, true},
		{`{"prompt":"a","tools":[{}],"tool_choice":{"type":"function","function":{"name":"f"}}}`, false, true},
		{`{"prompt":"a","response_format":{"type":"text"}}`, false, true},
		{`{"prompt":"a","response_format":{"json_schema":{},"type":"json_object"}}`, false, true},
		{`{"prompt":"a","response_format":{}}`, false, true}, // the shared error: no type
		{`{"prompt":"a","guided_regex":"[a-z]+"}`, false, true},
		{`{"prompt":"a","temperature":-0.5}`, false, true},
		{`{"prompt":"a","top_p":0}`, false, true},
		{`{"prompt":"a","top_p":1.0000001}`, false, true},
		{`{"prompt":"a","presence_penalty":2.5}`, false, true},
		{`{"prompt":"a","frequency_penalty":-3e0}`, false, true},
		{`{"prompt":"a","logprobs":21}`, false, true},
		{`{"prompt":"a","top_logprobs":-1}`, false, true},
		{`{"prompt":"a","n":0}`, false, true},
		{`{"prompt":"a","n":129}`, false, true},
		{`{"prompt":"a","max_completion_tokens":0}`, false, true},
		{`{"prompt":"a","temperature":1e400}`, false, false}, // out of float64's range
		{`{"prompt":"a","temperature":"hot"}`, false, false},
		{`{"prompt":"a","seed":1.5}`, false, false},
		{`{"prompt":"a","logprobs":1.5}`, false, false},
		{`{"prompt":"a","logprobs":"yes"}`, false, false},
		{`{"prompt":"a","stop":[1]}`, false, false},
		{`{"prompt":"a","stop":[null]}`, false, false},
		{`{"prompt":"a","stop":{}}`, false, false},
		{`{"prompt":"a","tools":{}}`, false, false},
		{`{"prompt":"a","response_format":{"type":"yaml"}}`, false, false},
		{`{"prompt":"a","response_format":{"type":null}}`, false, false},
		{`{"prompt":"a","response_format":{"Type":"text"}}`, false, false},
		{`{"prompt":"a","response_format":{"type":"text","type":"json_object"}}`, false, false},
		{`{"prompt":"a","response_format":"json"}`, false, false},
		{`{"prompt":"a","Temperature":1}`, false, false},
		{`{"prompt":"a","stop":"x","stop":"y"}`, false, false},
		// chat requests answered from a schema they carry go to encoding/json, which keeps it
		{`{"messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema","json_schema":{"name":"s","schema":{"type":"object"}}}}`, true, false},
		{`{"messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"required"}`, true, false},
		{`{"messages":[{"role":"user","content":"x"}],"tools":[{}],"tool_choice":{"type":"function","function":{"name":"f"}}}`, true, false},
		{`{"messages":[{"role":"user","content":"x"}],"tools":[{}],"tool_choice":"auto","response_format":{"type":"json_object"}}`, true, true},
		{`{"messages":[{"role":"user","content":"x"}],"tools":[],"tool_choice":"required"}`, true, true},
		// the tools list is kept as sent, for the chat template; tool turns go to encoding/json
		{`{"messages":[{"role":"user","content":"x"}],"tools" : [ {"type":"function","function":{"name":"f","description":"d \"q\""}} ] ,"max_tokens":2}`, true, true},
		{`{"messages":[{"role":"user","content":"x"}],"tools":null}`, true, true},
		{`{"messages":[{"role":"assistant","content":"","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]}]}`, true, false},
		{`{"messages":[{"role":"tool","tool_call_id":"a","content":"r"}]}`, true, false},
		{`{"messages":[{"role":"tool","Tool_Call_ID":"a","content":"r"}]}`, true, false},
	}
	for _, tc := range cases {
		fast, ferr, ok := fastParse([]byte(tc.body), tc.chat, 16)
		if ok != tc.wantFast {
			t.Errorf("%s: fast path answered %v, want %v", tc.body, ok, tc.wantFast)
		}
		if !ok {
			continue
		}
		slow, serr := slowParse([]byte(tc.body), tc.chat, 16)
		if (ferr == nil) != (serr == nil) || ferr != nil && ferr.Error() != serr.Error() {
			t.Errorf("%s: errors differ: fast %v, slow %v", tc.body, ferr, serr)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s: fast %+v, slow %+v", tc.body, fast, slow)
		}
	}
}

// optionsBody is a chat body with every option the simulator reads, none of them escaped. Its
// response_format is json_object, whose answer is a constant: a json_schema (or a forced tool
// call) has its answer built from the schema, which only slowParse keeps.
const optionsBody = `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_completion_tokens":9,"n":3,` +
	`"temperature":0,"top_p":0.9,"seed":42,"presence_penalty":-2,"frequency_penalty":2,"logprobs":true,"top_logprobs":5,` +
	`"stop":["\n\n","END"],"tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object"}}}],` +
	`"tool_choice":"auto","parallel_tool_calls":false,` +
	`"response_format":{"type":"json_object"},"stream":true}`

// TestParseOptions checks what each option sets, through ParseRequest.
func TestParseOptions(t *testing.T) {
	r, err := ParseRequest([]byte(optionsBody), true, 16)
	if err != nil {
		t.Fatal(err)
	}
	if r.N != 3 || r.MaxTokens != 9 || r.Stops != 2 || !r.Structured || !r.Stream {
		t.Errorf("got %+v", r)
	}
	cases := []struct {
		body       string
		structured bool
		n, stops   int
	}{
		{`{"prompt":"a"}`, false, 1, 0},
		{`{"prompt":"a","n":5,"stop":"x"}`, false, 5, 1},
		{`{"prompt":"a","response_format":{"type":"text"}}`, false, 1, 0},
		{`{"prompt":"a","response_format":{"type":"json_object"}}`, true, 1, 0},
		{`{"prompt":"a","response_format":{"type":"json_schema","json_schema":{"name":"s","schema":{}}}}`, true, 1, 0},
		{`{"prompt":"a","response_format":{"type":"structural_tag"}}`, true, 1, 0},
		{`{"prompt":"a","tools":[{"type":"function"}]}`, true, 1, 0},
		{`{"prompt":"a","tools":[{"type":"function"}],"tool_choice":"required"}`, true, 1, 0},
		{`{"prompt":"a","tools":[{"type":"function"}],"tool_choice":"none"}`, false, 1, 0},
		{`{"prompt":"a","tools":[]}`, false, 1, 0},
		{`{"prompt":"a","guided_json":{"type":"object"}}`, true, 1, 0},
		{`{"prompt":"a","guided_choice":["yes","no"]}`, true, 1, 0},
		{`{"prompt":"a","structured_outputs":{"regex":"a+"}}`, true, 1, 0},
		{`{"prompt":"a","guided_grammar":null}`, false, 1, 0},
		{`{"prompt":"a","stop":["a","b","c"]}`, false, 1, 3},
		{"{\"prompt\":\"a\",\n \"stop\" : [ \"a\" , \"b\" ] }", false, 1, 2},
	}
	for _, tc := range cases {
		r, err := ParseRequest([]byte(tc.body), false, 16)
		if err != nil {
			t.Errorf("%s: %v", tc.body, err)
			continue
		}
		if r.Structured != tc.structured || r.N != tc.n || r.Stops != tc.stops {
			t.Errorf("%s: structured %v n %d stops %d, want %v %d %d", tc.body, r.Structured, r.N, r.Stops, tc.structured, tc.n, tc.stops)
		}
	}
}

// TestParseOptionErrors checks that an option out of vLLM's range is refused with a message
// naming its field, on either parser.
func TestParseOptionErrors(t *testing.T) {
	cases := map[string]string{
		`{"prompt":"a","temperature":-0.1}`:                  `"temperature": must be >= 0, got -0.1`,
		`{"prompt":"a","top_p":0}`:                           `"top_p": must be in (0, 1], got 0`,
		`{"prompt":"a","top_p":1.5}`:                         `"top_p"`,
		`{"prompt":"a","presence_penalty":-2.01}`:            `"presence_penalty": must be in [-2, 2]`,
		`{"prompt":"a","frequency_penalty":3}`:               `"frequency_penalty"`,
		`{"prompt":"a","logprobs":-1}`:                       `"logprobs"`,
		`{"prompt":"a","logprobs":"x"}`:                      `"logprobs"`,
		`{"prompt":"a","top_logprobs":21}`:                   `"top_logprobs": must be in [0, 20]`,
		`{"prompt":"a","n":0}`:                               `"n": must be in [1, 128], got 0`,
		`{"prompt":"a","n":-3}`:                              `"n"`,
		`{"prompt":"a","max_completion_tokens":0}`:           `"max_completion_tokens": must be >= 1`,
		`{"prompt":"a","stop":[1]}`:                          `"stop": must be a string, a list of strings or null`,
		`{"prompt":"a","stop":true}`:                         `"stop"`,
		`{"prompt":"a","tools":"f"}`:                         `"tools": must be a list`,
		`{"prompt":"a","response_format":{"type":"yaml"}}`:   `"response_format.type": must be text, json_object, json_schema or structural_tag, got "yaml"`,
		`{"prompt":"a","response_format":{"schema":{}}}`:     `"response_format.type": missing`,
		`{"prompt":"a","temperature":"warm"}`:                `temperature`,
		`{"prompt":"a","temperature":-1,"n":0}`:              `"n"`, // limits are checked first, on both paths
		`{"prompt":"a","top_p":2,"response_format":{"a":1}}`: `"top_p"`,
	}
	for body, want := range cases {
		_, err := ParseRequest([]byte(body), false, 16)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %s", body, err, want)
		}
	}
}

// TestOptionsCostNoAllocations: the options are read without an allocation, so a body carrying
// all of them parses with no more allocations than the same body without them, but for one:
// the copy of the tools list, which is prompt text to the chat template (Request.Tools).
func TestOptionsCostNoAllocations(t *testing.T) {
	plain := []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_completion_tokens":9,"stream":true}`)
	full := []byte(optionsBody)
	if _, _, ok := fastParse(full, true, 16); !ok {
		t.Fatal("the options body left the fast path")
	}
	allocs := func(body []byte) float64 {
		return testing.AllocsPerRun(100, func() {
			if _, err := ParseRequest(body, true, 16); err != nil {
				t.Fatal(err)
			}
		})
	}
	if a, b := allocs(plain), allocs(full); b > a+1 {
		t.Errorf("%v allocations with every option, %v without: more than the tools' copy", b, a)
	}
}
