package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results/rowfile"
)

// adapterTargets are nine logged names: three models, each on its own real tokenizer, and
// six LoRA adapters on them (three on the first, two on the second, one on the third).
var adapterTargets = []struct{ logged, model, adapter, tok string }{
	{"gpt-4o", "big-llama", "", "llama3"}, {"gpt-4o-sql", "big-llama", "sql-lora", "llama3"},
	{"gpt-4o-code", "big-llama", "code-lora", "llama3"}, {"gpt-4o-legal", "big-llama", "legal-lora", "llama3"},
	{"gpt-4o-mini", "small-qwen", "", "qwen3"}, {"gpt-4o-mini-support", "small-qwen", "support-lora", "qwen3"},
	{"gpt-4o-mini-sum", "small-qwen", "sum-lora", "qwen3"},
	{"mistral-small", "sample-mistral", "", ""}, {"mistral-small-fr", "sample-mistral", "fr-lora", ""},
}

// TestRoutedAdapters is issue 47's first Done-when against the simulator: a log of 3 models
// and 6 adapters, in two-turn sessions with priorities, replays with every request on its
// mapped model or adapter (the simulator serves each adapter as vLLM's --lora-modules does,
// two slots of them at once), counted by its model's tokenizer: prompt tokens 100% exact, the
// models section holding each served name with its requests, the interactive class ahead.
func TestRoutedAdapters(t *testing.T) {
	var yaml strings.Builder
	for _, a := range adapterTargets {
		fmt.Fprintf(&yaml, "%s:\n  model: %s\n", a.logged, a.model)
		if a.adapter != "" {
			fmt.Fprintf(&yaml, "  adapter: %s\n", a.adapter)
		}
		if a.tok != "" {
			fmt.Fprintf(&yaml, "  tokenizer: %s\n", testenv.Tokenizer(t, a.tok))
		}
	}
	dir := t.TempDir()
	mapPath := filepath.Join(dir, "map.yaml")
	if err := os.WriteFile(mapPath, []byte(yaml.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	words := strings.Repeat("the quick brown fox jumps over the lazy dog while seven wizards judge ", 3)
	var log strings.Builder
	want := map[string]int64{}
	at := 1.7e9
	for s := 0; s < 36; s++ {
		a := adapterTargets[s%len(adapterTargets)]
		tier := []string{"interactive", "batch"}[s%2]
		q1, a1 := fmt.Sprintf("session %d: %s", s, words), fmt.Sprintf("answer %d", s)
		for turn, msgs := range [][]map[string]string{
			{{"role": "user", "content": q1}},
			{{"role": "user", "content": q1}, {"role": "assistant", "content": a1}, {"role": "user", "content": "and then?"}},
		} {
			raw, _ := json.Marshal(map[string]any{"timestamp": at, "headers": map[string]any{"X-Tier": tier},
				"request":  map[string]any{"model": a.logged, "messages": msgs, "stream": true, "max_tokens": 12},
				"response": map[string]any{"choices": []any{map[string]any{"message": map[string]string{"role": "assistant", "content": a1}}}, "usage": map[string]int{"completion_tokens": 8 + turn}}})
			log.Write(append(raw, '\n'))
			served := a.model
			if a.adapter != "" {
				served = a.adapter
			}
			want[served]++
			at += 0.02
		}
	}
	logPath := filepath.Join(dir, "adapters.jsonl")
	if err := os.WriteFile(logPath, []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", "--trace", logPath, "--format", "openai-log", "--tokenizer", testenv.SampleTokenizer(),
		"--model-map", mapPath, "--headers", "logged", "--priority-map", "header:x-tier=interactive:0,model=*:10",
		"--slo-class-by", "header:x-tier", "--sim-max-loras", "2", "--speed", "2", "--max-lateness", "none", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	var sum analysis.Summary
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err == nil {
		err = json.Unmarshal(b, &sum)
	}
	if err != nil {
		t.Fatal(err)
	}
	if p := sum.Fidelity.PromptTokensExactPct; p == nil || *p != 100 || sum.Requests.Failed != 0 || sum.Requests.Total != 72 {
		t.Fatalf("prompt exactness %v, %d of %d failed: each request must be counted by its model's tokenizer", p, sum.Requests.Failed, sum.Requests.Total)
	}
	if len(sum.Models) != len(want) {
		t.Errorf("models section %v: want the %d served names", sum.Models, len(want))
	}
	for name, n := range want {
		if g := sum.Models[name]; g.Requests != n {
			t.Errorf("models[%s]: %d requests, want %d", name, g.Requests, n)
		}
	}
	rows, err := rowfile.ReadAll(filepath.Join(out, "requests.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	sessions := map[string]string{}
	for _, r := range rows {
		if m, ok := sessions[r.SessionID]; ok && m != r.Model {
			t.Errorf("session %s on %s and %s", r.SessionID, m, r.Model)
		}
		sessions[r.SessionID] = r.Model
	}
	if len(sessions) != 36 {
		t.Errorf("%d sessions recovered, want 36", len(sessions))
	}
	if in, b := sum.SLOClasses["interactive"].TTFT.P50, sum.SLOClasses["batch"].TTFT.P50; !(in < b) {
		t.Errorf("TTFT p50 interactive %.1f ms, batch %.1f ms: the priority map should put interactive ahead", in, b)
	}
	t.Logf("72 requests on 3 models and 6 adapters, 100%% exact; ttft p50 interactive %.1f ms, batch %.1f ms",
		sum.SLOClasses["interactive"].TTFT.P50, sum.SLOClasses["batch"].TTFT.P50)
}
