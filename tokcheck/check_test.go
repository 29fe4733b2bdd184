package tokcheck

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// fakeLlama answers /apply-template and /tokenize in the shapes of ggml-org/llama.cpp
// tools/server/README.md at 00dc8057ab28c9cb4c79a6dd6dfce07fe779f63b ({prompt}; {tokens: [ids]}),
// one token per space-separated word plus BOS when add_special is true.
func fakeLlama(t *testing.T) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in map[string]json.RawMessage
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		switch r.URL.Path {
		case "/apply-template":
			var msgs []struct{ Role, Content string }
			if err := json.Unmarshal(in["messages"], &msgs); err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			var b strings.Builder
			for _, m := range msgs {
				b.WriteString("<|im_start|> " + m.Role + " " + m.Content + " <|im_end|> ")
			}
			b.WriteString("<|im_start|> assistant")
			json.NewEncoder(w).Encode(map[string]string{"prompt": b.String()})
		case "/tokenize":
			var content string
			json.Unmarshal(in["content"], &content)
			ids := []int{}
			if string(in["add_special"]) == "true" {
				ids = append(ids, 1)
			}
			for range strings.Fields(content) {
				ids = append(ids, 7)
			}
			json.NewEncoder(w).Encode(map[string]any{"tokens": ids})
		default:
			http.NotFound(w, r)
		}
	}))
}

// fakeVLLM answers /tokenize in the shape of vllm-project/vllm's TokenizeResponse
// (vllm/entrypoints/openai/protocol.py: count, max_model_len, tokens), a word a token, and
// refuses a body without model as vLLM's request models require it.
func fakeVLLM(t *testing.T) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Model    string
			Prompt   *string
			Messages []struct{ Role, Content string }
		}
		if r.URL.Path != "/tokenize" || json.NewDecoder(r.Body).Decode(&in) != nil || in.Model == "" {
			http.Error(w, `{"object":"error"}`, 400)
			return
		}
		n := 1 // BOS
		if in.Prompt != nil {
			n += len(strings.Fields(*in.Prompt))
		}
		for _, m := range in.Messages {
			n += 3 + len(strings.Fields(m.Content))
		}
		json.NewEncoder(w).Encode(map[string]any{"count": n, "max_model_len": 8192, "tokens": make([]int, n)})
	}))
}

func TestCheckLlamaCpp(t *testing.T) {
	srv := fakeLlama(t)
	defer srv.Close()
	s := Server{HTTP: srv.Client(), Base: srv.URL, Dialect: LlamaCpp}
	prompts := []Prompt{
		{ID: "a", Text: "one two three", Want: 4},
		{ID: "b", Chat: true, Messages: json.RawMessage(`[{"role":"user","content":"hi there"}]`), Want: 1 + 7}, // BOS and the templated words
		{ID: "c", Text: "one two", Want: 2}, // BOS forgotten: must differ
	}
	r := Check(context.Background(), s, prompts, 3)
	if r.Checked != 3 || r.Equal != 2 || len(r.First) != 1 || r.First[0].ID != "c" || r.First[0].Server != 3 {
		t.Fatalf("result %+v", r)
	}
	if got := r.Line(); !strings.HasPrefix(got, "tokenize cross-check: 2 of 3 equal; first differences: c replay 2 server 3") {
		t.Errorf("line %q", got)
	}
}

func TestCheckVLLM(t *testing.T) {
	srv := fakeVLLM(t)
	defer srv.Close()
	prompts := []Prompt{
		{ID: "a", Text: "one two three", Want: 4},
		{ID: "b", Chat: true, Messages: json.RawMessage(`[{"role":"user","content":"hi there"}]`), Want: 6},
	}
	r := Check(context.Background(), Server{HTTP: srv.Client(), Base: srv.URL, Model: "m", Dialect: VLLM}, prompts, 10)
	if !r.AllEqual() || r.Checked != 2 {
		t.Fatalf("result %+v", r)
	}
	if !strings.Contains(r.Line(), "2 of 2 equal (an evenly spaced sample of 10 sent)") {
		t.Errorf("line %q", r.Line())
	}
	// Without the model vLLM refuses the body: a failure named by id, not an error.
	r = Check(context.Background(), Server{HTTP: srv.Client(), Base: srv.URL, Dialect: VLLM}, prompts[:1], 1)
	if r.Failed != 1 || r.AllEqual() || !strings.Contains(r.Line(), "a (tokcheck: ") {
		t.Fatalf("result %+v line %q", r, r.Line())
	}
}

func TestSample(t *testing.T) {
	if got := Sample(3, 5); len(got) != 3 || got[2] != 2 {
		t.Errorf("Sample(3,5) = %v", got)
	}
	got := Sample(10001, 5)
	want := []int{0, 2500, 5000, 7500, 10000}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Sample(10001,5) = %v, want %v", got, want)
		}
	}
	if Sample(0, 5) != nil || len(Sample(7, 1)) != 1 {
		t.Error("edge cases")
	}
}

func TestParseDialect(t *testing.T) {
	if _, err := ParseDialect("sglang"); err == nil {
		t.Error("sglang accepted")
	}
	if d, ok := ForEngine("vllm"); !ok || d != VLLM {
		t.Error("vllm")
	}
}
