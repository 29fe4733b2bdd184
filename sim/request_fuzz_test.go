package sim

import (
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/llm-replay/replay/media"
)

// FuzzParseRequest feeds arbitrary bodies to the parser and, for accepted ones, the prompt
// builder and the response writer: nothing may panic, accepted requests must be usable, and
// the JSON written back (which echoes the model name) must be valid.
func FuzzParseRequest(f *testing.F) {
	f.Add([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":3,"stream":true}`), true)
	f.Add([]byte(`{"prompt":[1,2,3],"max_tokens":2,"min_tokens":1,"ignore_eos":true}`), false)
	f.Add([]byte(`{"prompt":["abc"],"stream_options":{"include_usage":true}}`), false)
	f.Add([]byte(`{"prompt":[[4,5]],"max_completion_tokens":7}`), false)
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url"}]}]}`), true)
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"data:image/webp;base64,UklGRhEAAABXRUJQVlA4TAUAAAAvBMAAAA==","detail":"low"}}]}]}`), true)
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"input_audio","input_audio":{"data":"UklGRigAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQQAAAAQAPD/","format":"wav"}}]}]}`), true)
	f.Add([]byte(optionsBody), true)
	f.Add([]byte(`{"prompt":"a","n":4,"stop":"x","response_format":{"type":"json_object"},"max_completion_tokens":3}`), false)
	f.Add([]byte(`{"messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f\"","parameters":{"type":"object","properties":{"a":{"enum":["é\n"]}},"required":["a"]}}}],"tool_choice":"required","n":2}`), true)
	f.Add([]byte(`{"messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema","json_schema":{"schema":{"$ref":"#/$defs/a","$defs":{"a":{"type":"array","minItems":3}}}}},"min_tokens":9}`), true)
	cfg := DefaultConfig()
	cfg.Counter = ApproxCounter{}
	cfg.BlockSize = 4
	cfg.Images = media.Fixed(3) // images counted, so their prompts are built too
	f.Fuzz(func(t *testing.T, body []byte, chat bool) {
		r, err := ParseRequest(body, chat, 16)
		if err != nil {
			return
		}
		if r.MaxTokens < 1 || r.MinTokens < 0 || r.MinTokens > r.MaxTokens || r.N < 1 || r.N > maxN || r.Stops < 0 {
			t.Fatalf("accepted bad limits: %+v", r)
		}
		if chat && len(r.Messages) == 0 {
			t.Fatal("accepted a chat request without messages")
		}
		if !chat && r.HasIDs && len(r.PromptIDs) == 0 {
			t.Fatal("accepted an empty id prompt")
		}
		p, err := buildPrompt(&cfg, &r)
		if err != nil {
			return
		}
		if p.tokens <= 0 || len(p.hashes)*cfg.BlockSize >= p.tokens {
			t.Fatalf("prompt of %d tokens with %d cacheable blocks", p.tokens, len(p.hashes))
		}
		a := newAnswer(chat, 1, 0, r.Model)
		a.out = newOutput(cfg.Counter, &r)
		if r.Content != nil && (a.out.tokens < 1 || a.out.tokens > r.MaxTokens) {
			t.Fatalf("a content answer of %d tokens, max_tokens %d", a.out.tokens, r.MaxTokens)
		}
		out := a.appendChunk(nil, r.N-1, 0, min(2, a.out.tokens), true, true)
		var v struct {
			Model string `json:"model"`
		}
		if err := json.Unmarshal(out[len("data: "):], &v); err != nil {
			t.Fatalf("invalid chunk JSON %q: %v", out, err)
		}
		if utf8.ValidString(r.Model) && v.Model != r.Model {
			t.Fatalf("model %q echoed as %q", r.Model, v.Model)
		}
		full := a.appendFull(nil, r.N, a.out.tokens, usage{prompt: p.tokens, completion: a.out.tokens * r.N})
		if !json.Valid(full) {
			t.Fatalf("invalid body %q", full)
		}
		if r.Content != nil && a.out.finish != "length" && !json.Valid([]byte(r.Content.Text)) {
			t.Fatalf("content %q is not JSON", r.Content.Text)
		}
	})
}

// FuzzFastParse checks the fast path against encoding/json: wherever fastParse answers, it must
// give exactly what slowParse gives.
func FuzzFastParse(f *testing.F) {
	f.Add([]byte(`{"model":"m","messages":[{"role":"user","content":"hi","name":"x"}],"max_tokens":3,"stream":true,"temperature":0.7}`), true)
	f.Add([]byte(`{"prompt":[1,2,3],"max_tokens":2,"min_tokens":1,"ignore_eos":true,"n":1}`), false)
	f.Add([]byte(`{"prompt":"caf\u00e9 \"q\"","stream_options":{"include_usage":true,"x":[1,{"a":"]"}]}}`), false)
	f.Add([]byte(`{"Model":"m","prompt":"a"}`), false)
	f.Add([]byte(`{"model":"m","model":"n","prompt":"a"}`), false)
	f.Add([]byte(`{"prompt":[1,-2],"max_completion_tokens":7}`), false)
	f.Add([]byte(`{"messages":[],"prompt":{"x":1}}`), true)
	f.Add([]byte("{\"prompt\":\"\xff\xfe\"}"), false)
	f.Add([]byte(optionsBody), true)
	f.Add([]byte(`{"prompt":"a","n":null,"temperature":null,"stop":null,"tools":null,"response_format":null,"guided_json":null}`), false)
	f.Add([]byte(`{"prompt":"a","stop":["x",1],"temperature":1e400,"top_p":0,"logprobs":1.5}`), false)
	f.Add([]byte(`{"prompt":"a","response_format":{"type":"text","Type":"json_object"},"tools":[{}],"tool_choice":"n\u006fne"}`), false)
	f.Fuzz(func(t *testing.T, body []byte, chat bool) {
		fast, ferr, ok := fastParse(body, chat, 16)
		if !ok {
			return
		}
		slow, serr := slowParse(body, chat, 16)
		if (ferr == nil) != (serr == nil) || ferr != nil && ferr.Error() != serr.Error() {
			t.Fatalf("errors differ: fast %v, slow %v", ferr, serr)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("results differ:\nfast %+v\nslow %+v", fast, slow)
		}
	})
}
