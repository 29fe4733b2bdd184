package engine

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// /v1/models as each engine writes it: vLLM with its root, Ollama with tags, llama.cpp.
func TestServedLists(t *testing.T) {
	for _, c := range []struct {
		body, model string
		lists       bool
		root        string
	}{
		{`{"data":[{"id":"qwen","owned_by":"vllm","root":"Qwen/Qwen3-8B"}]}`, "qwen", true, "Qwen/Qwen3-8B"},
		{`{"data":[{"id":"qwen","owned_by":"vllm","root":"Qwen/Qwen3-8B"}]}`, "Qwen/Qwen3-8B", false, ""},
		{`{"object":"list","data":[{"id":"replay-raw:latest","owned_by":"library"}]}`, "replay-raw", true, ""},
		{`{"object":"list","data":[{"id":"replay-raw:latest","owned_by":"library"}]}`, "replay-raw:q8", false, ""},
		{`{"data":[{"id":"model.gguf","owned_by":"llamacpp"}]}`, "anything", true, ""},
		{`{"data":[{"id":"a.gguf","owned_by":"llamacpp"},{"id":"b.gguf","owned_by":"llamacpp"}]}`, "c.gguf", false, ""},
		{`{"object":"list","data":[{"id":"Qwen/Qwen3-8B","object":"model","created":0,"owned_by":"Qwen/Qwen3-8B"}]}`, "tgi", true, ""},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/v1/models" {
				http.NotFound(w, r)
				return
			}
			fmt.Fprint(w, c.body)
		}))
		s := ListModels(context.Background(), nil, srv.URL+"/v1")
		if !s.Listed || s.Lists(c.model) != c.lists {
			t.Errorf("%s for %q: listed %v, lists %v; want %v", c.body, c.model, s.Listed, s.Lists(c.model), c.lists)
		}
		names := TokenizerNames(context.Background(), nil, srv.URL+"/v1", s, c.model)
		if c.root != "" && (len(names) != 2 || names[0].Name != c.root || names[0].From != "the endpoint's /v1/models root") {
			t.Errorf("%s: tokenizer names %+v", c.body, names)
		}
		srv.Close()
	}
}

// SGLang's /model_info (or the older /get_model_info) names the tokenizer when /v1/models
// gives no root.
func TestTokenizerNamesSGLang(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			fmt.Fprint(w, `{"object":"list","data":[{"id":"default","owned_by":"sglang"}]}`)
		case "/get_model_info":
			fmt.Fprint(w, `{"model_path":"/models/qwen","tokenizer_path":"Qwen/Qwen3-8B","is_generation":true}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	s := ListModels(context.Background(), nil, srv.URL+"/v1")
	names := TokenizerNames(context.Background(), nil, srv.URL+"/v1", s, "default")
	if len(names) != 2 || names[0] != (TokenizerName{"Qwen/Qwen3-8B", "the endpoint's /get_model_info tokenizer_path"}) || names[1].Name != "default" {
		t.Fatalf("names %+v", names)
	}
}
