package sim

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// errorOf reads an error body in the shape of the API at path and returns its type and
// message: OpenAI's {"error":{"message","type",...}}, or Anthropic's {"type":"error","error":
// {"type","message"}} (anthropic-sdk-python's shared/error_response.py).
func errorOf(t *testing.T, path string, body []byte) (typ, msg string) {
	t.Helper()
	o := decodeObject(t, body)
	e := o.obj("error")
	if path == "/v1/messages" {
		mustShape(t, "anthropic error", anthropicErrShape, o)
		mustShape(t, "anthropic error object", shape{required: []string{"message", "type"}}, e)
		if o.str("type") != "error" {
			t.Errorf("error body %s", body)
		}
	} else if _, ok := o["type"]; ok || e == nil {
		t.Errorf("not an OpenAI error: %s", body)
	}
	return e.str("type"), e.str("message")
}

// TestAPIBadRequests: a bad body gets 400 in its API's own error shape, its message naming the
// field at fault.
func TestAPIBadRequests(t *testing.T) {
	_, url := startServer(t, fastConfig())
	cases := []struct{ path, body, field string }{
		{"/v1/responses", `{`, "request body"},
		{"/v1/responses", `{"model":"m"}`, `"input"`},
		{"/v1/responses", `{"input":[]}`, `"input"`},
		{"/v1/responses", `{"input":{"a":1}}`, `"input"`},
		{"/v1/responses", `{"input":[{"content":"no role"}]}`, `"input[0]"`},
		{"/v1/responses", `{"input":[{"type":"function_call","arguments":{}}]}`, `"input[0]"`},
		{"/v1/responses", `{"input":"x","max_output_tokens":0}`, `"max_output_tokens"`},
		{"/v1/responses", `{"input":"x","max_output_tokens":2,"min_tokens":3}`, `"min_tokens"`},
		{"/v1/responses", `{"input":"x","max_output_tokens":300000}`, `max_output_tokens (300000) exceeds the maximum context length`},
		{"/v1/responses", `{"input":"x","temperature":-1}`, `"temperature"`},
		{"/v1/responses", `{"input":"x","text":{"format":{"type":"xml"}}}`, `"text.format.type"`},
		{"/v1/responses", `{"input":"x","tool_choice":"sometimes"}`, `"tool_choice"`},
		{"/v1/responses", `{"input":"x","tools":{"type":"function"}}`, `"tools"`},
		{"/v1/responses", `{"input":"x","tools":[{"type":"function"}]}`, `"tools[0].name"`},
		{"/v1/messages", `{`, "request body"},
		{"/v1/messages", `{"messages":[{"role":"user","content":"x"}]}`, `"max_tokens"`},
		{"/v1/messages", `{"max_tokens":0,"messages":[{"role":"user","content":"x"}]}`, `"max_tokens"`},
		{"/v1/messages", `{"max_tokens":1,"messages":[]}`, `"messages"`},
		{"/v1/messages", `{"max_tokens":1,"messages":[{"role":"robot","content":"x"}]}`, `"messages[0]"`},
		{"/v1/messages", `{"max_tokens":1,"messages":[{"role":"user","content":7}]}`, `"messages[0]"`},
		{"/v1/messages", `{"max_tokens":1,"messages":[{"role":"user","content":"x"}],"tool_choice":{"type":"maybe"}}`, `"tool_choice.type"`},
		{"/v1/messages", `{"max_tokens":1,"messages":[{"role":"user","content":"x"}],"tools":[{"input_schema":{}}]}`, `"tools[0].name"`},
		{"/v1/messages", `{"max_tokens":1,"messages":[{"role":"user","content":"x"}],"output_config":{"format":{"type":"yaml"}}}`, `"output_config.format.type"`},
		{"/v1/messages", `{"max_tokens":1,"messages":[{"role":"user","content":"x"}],"top_p":2}`, `"top_p"`},
		{"/v1/embeddings", `{`, "request body"},
		{"/v1/embeddings", `{"model":"e"}`, `"input"`},
		{"/v1/embeddings", `{"input":[]}`, `"input"`},
		{"/v1/embeddings", `{"input":[1,-2]}`, `"input"`},
		{"/v1/embeddings", `{"input":["a",{}]}`, `"input"`},
		{"/v1/embeddings", `{"input":""}`, `"input[0]"`},
		{"/v1/embeddings", `{"input":"x","encoding_format":"hex"}`, `"encoding_format"`},
		{"/v1/embeddings", `{"input":"x","dimensions":0}`, `"dimensions"`},
		{"/v1/embeddings", `{"input":"x","dimensions":99999}`, `"dimensions"`},
	}
	for _, tc := range cases {
		resp, err := http.Post(url+tc.path, "application/json", strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s %s: status %d %s, want 400", tc.path, tc.body, resp.StatusCode, b)
			continue
		}
		typ, msg := errorOf(t, tc.path, b)
		if typ != "invalid_request_error" || !strings.Contains(msg, tc.field) {
			t.Errorf("%s %s: error %q %q, want invalid_request_error naming %s", tc.path, tc.body, typ, msg, tc.field)
		}
	}
}

// apiBodies are a small request to each API, streamed or not.
func apiBodies(stream bool) map[string]map[string]any {
	return map[string]map[string]any{
		"/v1/responses":  {"input": "hi", "max_output_tokens": 8, "stream": stream},
		"/v1/messages":   {"max_tokens": 8, "stream": stream, "messages": []map[string]any{{"role": "user", "content": "hi"}}},
		"/v1/embeddings": {"input": "hi"},
	}
}

// TestAPIFaults: the injected faults reach the new routes as they reach chat: an error and a
// rate limit in the API's own shape (Retry-After on the 429), a break cutting the answer,
// garbage frames.
func TestAPIFaults(t *testing.T) {
	statuses := map[Fault]int{FaultError: 500, FaultRateLimit: 429}
	anthropicTypes := map[Fault]string{FaultError: "api_error", FaultRateLimit: "rate_limit_error"}
	for _, zero := range []bool{false, true} {
		for _, f := range []Fault{FaultError, FaultRateLimit, FaultBreak, FaultGarbage} {
			cfg := fastConfig()
			cfg.ZeroCost = zero
			cfg.Faults.RetryAfter = 2 * time.Second
			switch f {
			case FaultError:
				cfg.Faults.ErrorRate = 1
			case FaultRateLimit:
				cfg.Faults.RateLimitRate = 1
			case FaultBreak:
				cfg.Faults.BreakRate = 1
			case FaultGarbage:
				cfg.Faults.GarbageRate = 1
			}
			_, url := startServer(t, cfg)
			for _, stream := range []bool{false, true} {
				for path, body := range apiBodies(stream) {
					o := send(t, t.Context(), url, path, "", body)
					what := path + " " + f.String()
					switch f {
					case FaultError, FaultRateLimit:
						if o.status != statuses[f] {
							t.Fatalf("%s: status %d %s", what, o.status, o.body)
						}
						typ, _ := errorOf(t, path, o.body)
						if path == "/v1/messages" && typ != anthropicTypes[f] {
							t.Errorf("%s: Anthropic error type %q, want %q", what, typ, anthropicTypes[f])
						}
						if f == FaultRateLimit && o.header.Get("Retry-After") != "2" {
							t.Errorf("%s: Retry-After %q", what, o.header.Get("Retry-After"))
						}
					case FaultBreak:
						if o.doErr == nil && o.readErr == nil {
							t.Errorf("zero=%v %s stream=%v: not cut (status %d, %d events)", zero, what, stream, o.status, len(o.events))
						}
					case FaultGarbage:
						if o.status != 200 || o.framesAreJSON() {
							t.Errorf("%s: status %d, frames all JSON", what, o.status)
						}
					}
				}
			}
		}
	}
}

// TestAPIMetrics: the new routes count in the same vLLM series as chat: their prompt and
// generated tokens and each finished request.
func TestAPIMetrics(t *testing.T) {
	for _, zero := range []bool{false, true} {
		cfg := fastConfig()
		cfg.ZeroCost = zero
		_, url := startServer(t, cfg)
		before := scrape(t, url)
		prompt := 0
		for _, stream := range []bool{false, true} {
			r := postEvents(t, url, "/v1/responses", apiBodies(stream)["/v1/responses"])
			m := postEvents(t, url, "/v1/messages", apiBodies(stream)["/v1/messages"])
			if stream {
				r.ok(t)
				m.ok(t)
				prompt += decodeObject(t, r.events[len(r.events)-1].data).obj("response").obj("usage").num("input_tokens")
				prompt += anthropicInput(decodeObject(t, m.events[len(m.events)-2].data).obj("usage"))
			} else {
				prompt += decodeObject(t, r.body).obj("usage").num("input_tokens")
				prompt += anthropicInput(decodeObject(t, m.body).obj("usage"))
			}
		}
		after := scrape(t, url)
		for name, want := range map[string]float64{"vllm:prompt_tokens_total": float64(prompt),
			"vllm:generation_tokens_total": 4 * 8, "vllm:request_success_total": 4} {
			if got := after[name] - before[name]; got != want {
				t.Errorf("zero=%v: %s rose by %v, want %v", zero, name, got, want)
			}
		}
	}
}
