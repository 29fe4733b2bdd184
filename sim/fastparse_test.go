package sim

import (
	"reflect"
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
		{`{"prompt":"a","max_tokens":null}`, false, false},
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
