package engine

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestAdapterField(t *testing.T) {
	for e, want := range map[Engine]string{VLLM: "", SGLang: "lora_path", LlamaCpp: "lora", TGI: "", Ollama: "", Generic: ""} {
		if got := e.AdapterField(); got != want {
			t.Errorf("%s: adapter field %q, want %q", e, got, want)
		}
	}
}

// TestLoraAdapters reads llama-server's GET /lora-adapters (its shape as build b11669
// answers) and maps names to ids by file name, or by a listed id.
func TestLoraAdapters(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/lora-adapters" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`[{"id":0,"path":"/models/lora/a.gguf","scale":0.0},{"id":1,"path":"/models/lora/b-v2.gguf","scale":1.0,"task_name":"","prompt_prefix":""}]`))
	}))
	defer srv.Close()
	list, err := LoraAdapters(t.Context(), nil, srv.URL+"/v1")
	if err != nil || len(list) != 2 {
		t.Fatalf("LoraAdapters: %v %v", list, err)
	}
	for name, want := range map[string]int{"a": 0, "b-v2": 1, "1": 1, "0": 0} {
		if id, ok := LoraID(list, name); !ok || id != want {
			t.Errorf("LoraID(%q) = %d %v, want %d", name, id, ok, want)
		}
	}
	for _, name := range []string{"b", "2", "a.gguf"} {
		if id, ok := LoraID(list, name); ok {
			t.Errorf("LoraID(%q) = %d, want none", name, id)
		}
	}
	if s := LoraList(list); s != "0 (/models/lora/a.gguf), 1 (/models/lora/b-v2.gguf)" {
		t.Errorf("LoraList: %s", s)
	}
	if _, err := LoraAdapters(t.Context(), nil, srv.URL+"/x/v1"); err == nil {
		t.Error("a 404 gave adapters")
	}
}
