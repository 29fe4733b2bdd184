package sim

import (
	"bytes"
	"encoding/json"
	"testing"
)

// fuzzAnswer runs an accepted request of a generating dialect through the prompt builder and
// the answer's framing, streamed and whole: nothing may panic, a usable request must come out,
// and every event and body written must be valid JSON in its API's framing.
func fuzzAnswer(t *testing.T, d *dialect, r Request) {
	if r.MaxTokens < 1 || r.MinTokens < 0 || r.MinTokens > r.MaxTokens || r.N != 1 || r.Stops < 0 || !r.Chat {
		t.Fatalf("accepted bad limits: %+v", r)
	}
	if len(r.Messages) == 0 {
		t.Fatal("accepted a request without messages")
	}
	cfg := DefaultConfig()
	cfg.Counter = ApproxCounter{}
	cfg.BlockSize = 4
	p, err := buildPrompt(&cfg, &r)
	if err != nil {
		return
	}
	a := d.answer(&r, 7, 0, r.Model)
	a.out = newOutput(cfg.Counter, &r)
	if r.Content != nil && (a.out.tokens < 1 || a.out.tokens > r.MaxTokens) {
		t.Fatalf("a content answer of %d tokens, max_tokens %d", a.out.tokens, r.MaxTokens)
	}
	a.input = usage{prompt: p.tokens}
	u := usage{prompt: p.tokens, completion: a.out.tokens}
	b := a.fr.appendStart(nil)
	half := max(1, a.out.tokens/2)
	b = a.fr.appendChunk(b, 0, 0, half, true, half == a.out.tokens)
	if half < a.out.tokens {
		b = a.fr.appendChunk(b, 0, half, a.out.tokens-half, false, true)
	}
	checkEvents(t, a.fr.appendEnd(b, u))
	if full := a.fr.appendFull(nil, 1, a.out.tokens, u); !json.Valid(full) {
		t.Fatalf("invalid body %q", full)
	}
}

// checkEvents holds a stream of named events to its framing: each an event line and a JSON
// data line of the same type.
func checkEvents(t *testing.T, stream []byte) {
	for _, ev := range bytes.Split(bytes.TrimSuffix(stream, []byte("\n\n")), []byte("\n\n")) {
		name, data, ok := bytes.Cut(ev, []byte("\ndata: "))
		name, named := bytes.CutPrefix(name, []byte("event: "))
		var v struct {
			Type string `json:"type"`
		}
		if !ok || !named || json.Unmarshal(data, &v) != nil || v.Type != string(name) {
			t.Fatalf("bad event %q in %q", ev, stream)
		}
	}
}

// FuzzParseResponses feeds arbitrary bodies to the Responses API's parser and the accepted
// ones to the prompt and the answer (seeds also in testdata/fuzz/FuzzParseResponses).
func FuzzParseResponses(f *testing.F) {
	f.Add([]byte(sameResponses))
	f.Add([]byte(`{"input":"hi","instructions":"s","max_output_tokens":3,"stream":true,"temperature":0.2,"top_p":1}`))
	f.Add([]byte(`{"input":[{"role":"user","content":[{"type":"input_text","text":"a"},{"type":"input_image"}]}],"text":{"format":{"type":"json_schema","name":"n","schema":{"type":"array","minItems":2}}},"min_tokens":9,"max_output_tokens":20}`))
	f.Add([]byte(`{"input":"x","tools":[{"type":"function","name":"f\"","parameters":{"type":"object","properties":{"a":{"enum":["é\n"]}},"required":["a"]}},{"type":"web_search"}],"tool_choice":"required","ignore_eos":true,"max_output_tokens":4}`))
	f.Add([]byte(`{"input":[{"type":"function_call_output","call_id":"c","output":[{"type":"input_text","text":"r"}]}],"tool_choice":{"type":"allowed_tools","mode":"auto"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if r, err := parseResponsesRequest(body, 16); err == nil {
			fuzzAnswer(t, &responsesDialect, r)
		}
	})
}

// FuzzParseMessages does the same for Anthropic's Messages API (seeds also in
// testdata/fuzz/FuzzParseMessages).
func FuzzParseMessages(f *testing.F) {
	f.Add([]byte(sameMessages))
	f.Add([]byte(`{"model":"c","max_tokens":3,"system":[{"type":"text","text":"s"}],"messages":[{"role":"user","content":"hi"}],"stream":true,"stop_sequences":["x"],"top_k":3}`))
	f.Add([]byte(`{"max_tokens":30,"messages":[{"role":"user","content":"x"}],"tools":[{"name":"t","input_schema":{"type":"object","properties":{"q":{"type":"string","minLength":3}},"required":["q"]}}],"tool_choice":{"type":"any"}}`))
	f.Add([]byte(`{"max_tokens":9,"messages":[{"role":"user","content":"x"}],"output_config":{"format":{"type":"json_schema","schema":{"type":"object","required":["a"],"properties":{"a":{"type":"boolean"}}}}},"min_tokens":9}`))
	f.Add([]byte(`{"max_tokens":2,"messages":[{"role":"system","content":"s"},{"role":"assistant","content":[{"type":"thinking","thinking":"t"}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if r, err := parseMessagesRequest(body, 16); err == nil {
			fuzzAnswer(t, &messagesDialect, r)
		}
	})
}

// FuzzParseEmbeddings feeds arbitrary bodies to the embeddings parser and the accepted ones to
// the prompt builder and the answer, which must be valid JSON with a vector per input (seeds
// also in testdata/fuzz/FuzzParseEmbeddings).
func FuzzParseEmbeddings(f *testing.F) {
	f.Add([]byte(`{"model":"e","input":"hello","encoding_format":"float"}`))
	f.Add([]byte(`{"input":["a","b"],"dimensions":3,"encoding_format":"base64"}`))
	f.Add([]byte(`{"input":[1,2,3]}`))
	f.Add([]byte(`{"input":[[1,2],[3]],"user":"u"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := parseEmbeddingsRequest(body, 16)
		if err != nil {
			return
		}
		if len(r.inputs) < 1 || len(r.inputs) > maxEmbeddingInputs || r.dims < 1 || r.dims > 16 {
			t.Fatalf("accepted %d inputs of %d dimensions", len(r.inputs), r.dims)
		}
		cfg := DefaultConfig()
		cfg.Counter = ApproxCounter{}
		total := 0
		for i := range r.inputs {
			p, err := buildPrompt(&cfg, &r.inputs[i])
			if err != nil {
				return
			}
			total += p.tokens
		}
		var v struct {
			Data []struct {
				Embedding json.RawMessage `json:"embedding"`
			} `json:"data"`
		}
		out := appendEmbeddings(nil, &r, total)
		if err := json.Unmarshal(out, &v); err != nil || len(v.Data) != len(r.inputs) {
			t.Fatalf("answer %q: %v", out, err)
		}
	})
}
