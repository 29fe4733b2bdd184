package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// answerCase is one non-streamed answer, as exact bytes, and how it must be judged.
type answerCase struct {
	name, body string
	status     int
	req        Request
	class      string
	msg        string // a substring of the message
	usage      [3]int
	finish     string
}

func runAnswers(t *testing.T, api string, cases []answerCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(max(tc.status, 200))
				io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			req := tc.req
			if api != APIEmbeddings {
				req.Options = &Options{Stream: ptr(false)}
			}
			r := newClient(t, srv.URL, api, nil).Do(context.Background(), req, newClock())
			if r.ErrorClass != tc.class || !strings.Contains(r.ErrorMessage, tc.msg) {
				t.Fatalf("class %q (%s), want %q with %q", r.ErrorClass, r.ErrorMessage, tc.class, tc.msg)
			}
			if len(r.ChunkNS) != 0 || r.FirstTokenNS != 0 {
				t.Errorf("a whole answer has %d chunks, first token %d", len(r.ChunkNS), r.FirstTokenNS)
			}
			if tc.class == "" || tc.class == ErrShort {
				if got := [3]int{r.PromptTokens, r.CompletionTokens, r.CachedTokens}; got != tc.usage {
					t.Errorf("usage %v, want %v", got, tc.usage)
				}
				if r.FinishReason != tc.finish {
					t.Errorf("finish %q, want %q", r.FinishReason, tc.finish)
				}
			}
		})
	}
}

// Whole Responses API answers: the reference's response object; a function call; an
// incomplete one at and short of its cap; a failed one; one still in progress; one with no
// output.
func TestResponsesAnswer(t *testing.T) {
	call := `{"object":"response","status":"completed","output":[{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"location\":\"Paris\"}","status":"completed"}],"usage":{"input_tokens":20,"output_tokens":9,"total_tokens":29}}`
	incomplete := `{"object":"response","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"In a"}]}],"usage":{"input_tokens":20,"output_tokens":%d}}`
	empty := `{"object":"response","status":"completed","output":[],"usage":{"input_tokens":20,"output_tokens":1}}`
	four := Request{Prompt: "x", MaxTokens: 4}
	runAnswers(t, APIResponses, []answerCase{
		{"reference", responsesObject, 0, four, "", "", [3]int{36, 87, 0}, "stop"},
		{"function call", call, 0, four, "", "", [3]int{20, 9, -1}, "tool_calls"},
		{"incomplete at the cap", fmt.Sprintf(incomplete, 4), 0, four, "", "", [3]int{20, 4, -1}, "length"},
		{"incomplete short", fmt.Sprintf(incomplete, 2), 0, four, ErrShort, "status incomplete", [3]int{20, 2, -1}, "length"},
		{"failed", strings.Replace(responsesFailed[strings.Index(responsesFailed, `"response":`)+len(`"response":`):len(responsesFailed)-len(`,"sequence_number":1}`)], "server_error", "rate_limit_exceeded", 1), 0, four, ErrHTTP429, "failed to generate", [3]int{}, ""},
		{"in progress", `{"object":"response","status":"in_progress","output":[]}`, 0, four, ErrBadStream, `status is "in_progress"`, [3]int{}, ""},
		{"no output", empty, 0, four, ErrBadStream, "no output", [3]int{}, ""},
		{"no output, none asked", empty, 0, Request{Prompt: "x"}, "", "", [3]int{20, 1, -1}, "stop"},
		{"no usage", `{"object":"response","status":"completed","output":[{"type":"reasoning","content":[{"type":"reasoning_text","text":"hm"}]}]}`, 0, four, ErrBadStream, "no usage", [3]int{}, ""},
		{"not JSON", `data: {"type":"response.created"}`, 0, four, ErrBadStream, "not a JSON", [3]int{}, ""},
		{"a 500", `{"error":{"message":"engine died","type":"InternalServerError","code":500}}`, 500, four, ErrHTTP5xx, "engine died", [3]int{}, ""},
	})
}

// Whole Messages API answers: the reference's message; a tool use; max_tokens at and short
// of the cap; an error object (Anthropic's shape) on a 200 and as a 529.
func TestMessagesAnswer(t *testing.T) {
	tool := `{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"location":"Paris"}}],"stop_reason":"tool_use","usage":{"input_tokens":30,"cache_read_input_tokens":70,"output_tokens":12}}`
	capped := `{"type":"message","role":"assistant","content":[{"type":"text","text":"Hi"}],"stop_reason":"max_tokens","usage":{"input_tokens":30,"output_tokens":%d}}`
	ten := Request{Prompt: "x", MaxTokens: 10}
	runAnswers(t, APIMessages, []answerCase{
		{"reference", messagesObject, 0, ten, "", "", [3]int{2095, 503, -1}, "stop"},
		{"tool use, cache reads", tool, 0, ten, "", "", [3]int{100, 12, 70}, "tool_calls"},
		{"max_tokens at the cap", fmt.Sprintf(capped, 10), 0, ten, "", "", [3]int{30, 10, -1}, "length"},
		{"max_tokens short", fmt.Sprintf(capped, 3), 0, ten, ErrShort, "stop_reason max_tokens", [3]int{30, 3, -1}, "length"},
		{"error on a 200", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, 0, ten, ErrHTTP5xx, "Overloaded", [3]int{}, ""},
		{"a 529", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, 529, ten, ErrHTTP5xx, "Overloaded", [3]int{}, ""},
		{"no content", `{"type":"message","content":[{"type":"text","text":""}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":0}}`, 0, ten, ErrBadStream, "no output", [3]int{}, ""},
	})
}

// Embeddings answers: one embedding per input in index order, arrays of numbers or base64
// strings, usage.prompt_tokens; no output tokens.
func TestEmbeddingsAnswer(t *testing.T) {
	two := Request{Inputs: []string{"a", "b"}}
	base64 := `{"object":"list","data":[{"object":"embedding","embedding":"AACAPwAAAEA=","index":0},{"object":"embedding","embedding":"AABAQAAAgEA=","index":1}],"model":"m","usage":{"prompt_tokens":4,"total_tokens":4}}`
	swapped := strings.Replace(strings.Replace(embeddingsList(2), `"index":0`, `"index":9`, 1), `"index":1`, `"index":0`, 1)
	runAnswers(t, APIEmbeddings, []answerCase{
		{"reference", embeddingsList(1), 0, Request{Prompt: "x"}, "", "", [3]int{8, 0, -1}, ""},
		{"batch", embeddingsList(2), 0, two, "", "", [3]int{8, 0, -1}, ""},
		{"base64", base64, 0, two, "", "", [3]int{4, 0, -1}, ""},
		{"one short", embeddingsList(1), 0, two, ErrBadStream, "1 embeddings for 2 inputs", [3]int{}, ""},
		{"out of order", swapped, 0, two, ErrBadStream, "data[0] has index 9", [3]int{}, ""},
		{"empty vector", `{"data":[{"embedding":[],"index":0}],"usage":{"prompt_tokens":1}}`, 0, Request{Prompt: "x"}, ErrBadStream, "data[0] has no embedding", [3]int{}, ""},
		{"strings in the vector", `{"data":[{"embedding":["a"],"index":0}],"usage":{"prompt_tokens":1}}`, 0, Request{Prompt: "x"}, ErrBadStream, "no embedding", [3]int{}, ""},
		{"no usage", `{"data":[{"embedding":[0.5],"index":0}]}`, 0, Request{Prompt: "x"}, ErrBadStream, "no usage", [3]int{}, ""},
		{"error on a 200", `{"object":"error","message":"too long","type":"BadRequestError","param":null,"code":400}`, 0, Request{Prompt: "x"}, ErrHTTP4xx, "too long", [3]int{}, ""},
		{"not JSON", `[1,2]`, 0, Request{Prompt: "x"}, ErrBadStream, "not a JSON", [3]int{}, ""},
	})
}

// A verbatim body goes to the API the request names and is judged as its answer: an
// embeddings body's input count is read from the body.
func TestVerbatimTypedAPIs(t *testing.T) {
	rc := &apiRecorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	c := newClient(t, srv.URL, APIChat, nil)
	for _, tc := range []struct {
		api, body, path string
		chunks          int
	}{
		{APIMessages, `{"model":"x","max_tokens":3,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, "/v1/messages", 3},
		{APIResponses, `{"model":"x","input":"hi","stream":true}`, "/v1/responses", 3},
		{APIResponses, `{"model":"x","input":"hi"}`, "/v1/responses", 0},
		{APIEmbeddings, `{"model":"x","input":["a","b","c"]}`, "/v1/embeddings", 0},
		{APIEmbeddings, `{"model":"x","input":[1,2,3]}`, "/v1/embeddings", 0},
	} {
		r := c.Do(context.Background(), Request{Body: []byte(tc.body), API: tc.api}, newClock())
		if !r.OK() || len(r.ChunkNS) != tc.chunks || r.API != tc.api {
			t.Fatalf("%s: %s: %s (%d chunks)", tc.body, r.ErrorClass, r.ErrorMessage, len(r.ChunkNS))
		}
		if got := rc.last(t); got.path != tc.path || string(got.body["model"]) != `"m"` {
			t.Fatalf("%s went to %s as %s", tc.body, got.path, got.raw)
		}
	}
}
