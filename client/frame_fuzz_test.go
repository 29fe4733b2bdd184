package client

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// FuzzParseFrame holds the frame walker to the frame semantics computed with encoding/json on
// every input: it accepts exactly the inputs whose first value a json.Decoder reads as an
// object, and extracts the same fields from them. The seed corpus
// (testdata/fuzz/FuzzParseFrame) holds real frames from vLLM, Ollama and OpenAI.
func FuzzParseFrame(f *testing.F) {
	for _, s := range frameSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := parseFrame(b)
		want, wantOK := oracleFrame(b)
		if ok != wantOK {
			t.Fatalf("ok %v, oracle %v for %q", ok, wantOK, b)
		}
		if !ok {
			return
		}
		gotMsg, wantMsg := canonRaw(got.errMsg), canonRaw(want.errMsg)
		got.errMsg, want.errMsg = nil, nil
		if !reflect.DeepEqual(got, want) || gotMsg != wantMsg {
			t.Fatalf("input %q\nscanner %+v %q\noracle  %+v %q", b, got, gotMsg, want, wantMsg)
		}
	})
}

var frameSeeds = []string{
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" the"},"logprobs":null,"finish_reason":null}],"usage":null}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":120,"total_tokens":140,"completion_tokens":20,"prompt_tokens_details":{"cached_tokens":64}}}`,
	`{"id":"cmpl-9","object":"text_completion","created":1,"model":"m","choices":[{"text":"w","index":0,"finish_reason":"length"}],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}`,
	`{"error":{"object":"error","message":"engine \"died\"","type":"InternalServerError","code":500}}`,
	`{"object":"error","message":"too long","type":"BadRequestError","param":null,"code":400}`,
	`{"error":"bad key"}`,
	`{"choices":[{"delta":{"reasoning_content":"hm"}},{"delta":{"content":""},"finish_reason":"stop"}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[],"content":null}}]}`,
	`{"cho\u0069ces":[{"text":"\u00e9"}],"usage":{"prompt_tokens":-0,"completion_tokens":1.5}}`,
	`{"choices":[{"text":"a","finish_reason":"l\u0065ngth"},{"finish_reason":"stop"}]}`,
	`{"choices":[{"finish_reason":"length","finish_reason":"stop"},{"finish_reason":"lengthy"}]}`,
	`{"choices":[{"delta":{"content":"<think>\nhm"}}],"usage":{"completion_tokens":9,"completion_tokens_details":{"reasoning_tokens":7}}}`,
	`{"choices":[{"delta":{"content":"so \u003c/think\u003e\n\nYes"}},{"text":"</think>  "}]}`,
	`{"choices":[{"delta":{"reasoning":"a","content":"b"}}],"usage":{"completion_tokens_details":{"reasoning_tokens":1.5}}}`,
	`{"choices":[{"text":"a\x"}]}`, `{"choices":[{"text":"a"}]} trailing`, "{\"error\":\"caf\xe9\"}",
}

// oracleFrame computes the frame semantics (see frame) with encoding/json.
func oracleFrame(b []byte) (frame, bool) {
	f := noFrame
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var top map[string]any
	if err := dec.Decode(&top); err != nil || top == nil {
		return noFrame, false
	}
	nonEmpty := func(v any) bool { s, ok := v.(string); return ok && s != "" }
	if choices, ok := top["choices"].([]any); ok {
		for _, c := range choices {
			m, ok := c.(map[string]any)
			if !ok {
				continue
			}
			if nonEmpty(m["text"]) {
				f.answer = true
				oracleTags(&f, m["text"].(string))
			}
			if d, ok := m["delta"].(map[string]any); ok {
				calls, _ := d["tool_calls"].([]any)
				if nonEmpty(d["content"]) || len(calls) > 0 {
					f.answer = true
				}
				if nonEmpty(d["content"]) {
					oracleTags(&f, d["content"].(string))
				}
				if nonEmpty(d["reasoning_content"]) || nonEmpty(d["reasoning"]) {
					f.thinking = true
				}
			}
			if nonEmpty(m["finish_reason"]) {
				f.finished = true
				if f.reason != "length" {
					f.reason = reasonWord([]byte(m["finish_reason"].(string)))
				}
			}
			if m["finish_reason"] == "length" {
				f.length = true
			}
		}
	}
	if u, ok := top["usage"].(map[string]any); ok {
		f.hasUsage = true
		f.prompt = oracleInt(u["prompt_tokens"])
		f.completion = oracleInt(u["completion_tokens"])
		if d, ok := u["prompt_tokens_details"].(map[string]any); ok {
			f.cached = oracleInt(d["cached_tokens"])
		}
		if d, ok := u["completion_tokens_details"].(map[string]any); ok {
			f.reasoning = oracleInt(d["reasoning_tokens"])
		}
	}
	rawOf := func(v any) []byte {
		s, ok := v.(string)
		if !ok {
			return nil
		}
		q, _ := json.Marshal(s)
		return q[1 : len(q)-1]
	}
	switch e := top["error"].(type) {
	case map[string]any:
		f.isError, f.errMsg, f.errCode = true, rawOf(e["message"]), oracleInt(e["code"])
		return f, true
	case string:
		if e != "" {
			f.isError, f.errMsg = true, rawOf(e)
			return f, true
		}
	}
	if top["object"] == "error" {
		f.isError, f.errMsg, f.errCode = true, rawOf(top["message"]), oracleInt(top["code"])
	}
	return f, true
}

// oracleTags sets the think tags a choice's text shows (see frame).
func oracleTags(f *frame, text string) {
	f.opens = f.opens || strings.Contains(text, thinkOpen)
	if i := strings.LastIndex(text, thinkClose); i >= 0 {
		f.closes = true
		f.after = f.after || strings.TrimSpace(text[i+len(thinkClose):]) != ""
	}
}

func oracleInt(v any) int64 {
	n, ok := v.(json.Number)
	if !ok {
		return -1
	}
	i, err := strconv.ParseInt(string(n), 10, 32)
	if err != nil {
		return -1
	}
	return i
}

// canonRaw decodes a raw JSON string body the way encoding/json does (invalid UTF-8 becomes
// U+FFFD), so both sides compare as text.
func canonRaw(raw []byte) string {
	var s string
	_ = json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s)
	return s
}
