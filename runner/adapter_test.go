package runner

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llm-replay/replay/engine"
	"github.com/llm-replay/replay/routing"
)

// TestEngineAdapters: a --model-map's adapters go as the engine takes them: llama-server's ids
// read from its GET /lora-adapters (by file name or id), SGLang's lora_path, the simulator's
// and vLLM's as the model; an adapter llama-server did not load is a setup error naming the
// adapters it lists.
func TestEngineAdapters(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/lora-adapters" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`[{"id":0,"path":"/models/lora/sql.gguf","scale":0.0},{"id":1,"path":"/models/lora/chat.gguf","scale":0.0}]`))
	}))
	defer srv.Close()
	mapOf := func(yaml string) Config {
		p := filepath.Join(t.TempDir(), "map.yaml")
		if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := routing.ParseMap(p, "")
		if err != nil {
			t.Fatal(err)
		}
		return Config{Routing: Routing{ModelMap: m}, Stderr: io.Discard}
	}
	two := mapOf("a: {model: base, adapter: chat}\nb: {model: base, adapter: \"0\"}\nc: base\n")
	state := func(e engine.Engine, sim string) *engineState {
		return &engineState{choice: engine.Choice{Engine: e, Simulator: sim}, http: srv.Client(), base: srv.URL + "/v1"}
	}
	c, err := state(engine.LlamaCpp, "").adapters(t.Context(), two)
	if err != nil || c.AdapterField != "lora" || len(c.AdapterIDs) != 2 || c.AdapterIDs["chat"] != 1 || c.AdapterIDs["0"] != 0 || !slices.Equal(c.AdapterListed, []int{0, 1}) {
		t.Errorf("llama.cpp: %q %v %v %v", c.AdapterField, c.AdapterIDs, c.AdapterListed, err)
	}
	if c, err := state(engine.SGLang, "").adapters(t.Context(), two); err != nil || c.AdapterField != "lora_path" || c.AdapterIDs != nil {
		t.Errorf("SGLang: %q %v %v", c.AdapterField, c.AdapterIDs, err)
	}
	for _, st := range []*engineState{state(engine.VLLM, ""), state(engine.Generic, ""), state(engine.VLLM, "the built-in simulator")} {
		if c, err := st.adapters(t.Context(), two); err != nil || c.AdapterField != "" {
			t.Errorf("%s: %q %v, want the adapter as the model", st.choice.Engine, c.AdapterField, err)
		}
	}
	if c, err := state(engine.LlamaCpp, "").adapters(t.Context(), mapOf("c: base\n")); err != nil || c.AdapterField != "" {
		t.Errorf("no adapter: %q %v", c.AdapterField, err)
	}
	_, err = state(engine.LlamaCpp, "").adapters(t.Context(), mapOf("a: {model: base, adapter: sql-v2}\n"))
	var se setupError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), `"sql-v2"`) || !strings.Contains(err.Error(), "0 (/models/lora/sql.gguf), 1 (/models/lora/chat.gguf)") {
		t.Errorf("an adapter llama-server did not load: %v, want a setup error naming it and the listed ones", err)
	}
}
