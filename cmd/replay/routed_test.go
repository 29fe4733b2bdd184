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

// routedLog writes a request log of four logged names (three models, one an adapter on the
// first's base), two-turn sessions, a priority header per session and, on every line,
// credentials that must never leave ingest. It returns the log and each name's requests.
func routedLog(t *testing.T) (string, map[string]int) {
	t.Helper()
	names := []string{"gpt-4o", "gpt-4o-mini", "mistral-small", "gpt-4o-sql"}
	words := strings.Repeat("the quick brown fox jumps over the lazy dog while seven wizards quietly judge boxing matches ", 4)
	var b strings.Builder
	counts := map[string]int{}
	at := 1.7e9
	for s := 0; s < 12; s++ {
		model := names[s%len(names)]
		prio := "low"
		if s%2 == 0 {
			prio = "high"
		}
		q1 := fmt.Sprintf("session %d question one: %s", s, words)
		a1 := fmt.Sprintf("answer %d to the first question, in a few words", s)
		q2 := fmt.Sprintf("session %d follow-up: %s", s, words[:120])
		turns := [][]map[string]string{
			{{"role": "user", "content": q1}},
			{{"role": "user", "content": q1}, {"role": "assistant", "content": a1}, {"role": "user", "content": q2}},
		}
		for turn, msgs := range turns {
			line := map[string]any{
				"timestamp": at,
				"headers": map[string]any{"X-Session-Id": fmt.Sprintf("sess-%d", s), "Priority": prio, "User-Agent": "app/1.0",
					"Authorization": "Bearer " + sentinelKey, "x-api-key": sentinelKey, "Cookie": "sid=" + sentinelKey},
				"request":  map[string]any{"model": model, "messages": msgs, "stream": true, "max_tokens": 12},
				"response": map[string]any{"choices": []any{map[string]any{"message": map[string]string{"role": "assistant", "content": a1}}}, "usage": map[string]int{"completion_tokens": 6 + turn}},
			}
			raw, err := json.Marshal(line)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(raw)
			b.WriteByte('\n')
			counts[model]++
			at += 0.05
		}
	}
	p := filepath.Join(t.TempDir(), "routed.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, counts
}

// routedMap writes the YAML model map: two models with their own real tokenizers, an adapter
// on the first, and the rest on the run's --tokenizer.
func routedMap(t *testing.T) string {
	t.Helper()
	llama, qwen := testenv.Tokenizer(t, "llama3"), testenv.Tokenizer(t, "qwen3")
	yaml := fmt.Sprintf("gpt-4o:\n  model: big-llama\n  tokenizer: %s\ngpt-4o-mini:\n  model: small-qwen\n  tokenizer: %s\n"+
		"gpt-4o-sql:\n  model: big-llama\n  adapter: sql-lora\n  tokenizer: %s\n\"*\": {model: sample-mistral}\n", llama, qwen, llama)
	p := filepath.Join(t.TempDir(), "map.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRoutedRun: a log of three models and an adapter replayed against the simulator with a
// model map: every request goes to its mapped model (the simulator refuses a name it does not
// serve), counted by that model's tokenizer (prompt tokens 100% exact), summary.json has a
// section per priority class and per served model, a class's --require exits 4 when it
// fails, and no credential of the log is in any file or stream.
func TestRoutedRun(t *testing.T) {
	log, counts := routedLog(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", "--trace", log, "--format", "openai-log", "--tokenizer", testenv.SampleTokenizer(),
		"--model-map", routedMap(t), "--headers", "logged", "--affinity-header", "x-session-affinity",
		"--slo-class-by", "header:priority", "--slo-class", "high:ttft=1us", "--slo-class", "low:ttft=10m",
		"--require", "high.goodput>=99%,low.goodput>=99%", "--speed", "5", "--max-lateness", "none", "--out", out)
	if code != 4 {
		t.Fatalf("exit %d, want 4 (high's 1µs TTFT fails)\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for stream, s := range map[string]string{"stdout": stdout, "stderr": stderr} {
		if strings.Contains(s, sentinelKey) {
			t.Fatalf("a logged credential is in %s", stream)
		}
	}
	checkNoKey(t, out)
	var sum analysis.Summary
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err == nil {
		err = json.Unmarshal(b, &sum)
	}
	if err != nil {
		t.Fatal(err)
	}
	if p := sum.Fidelity.PromptTokensExactPct; p == nil || *p != 100 || sum.Requests.Failed != 0 {
		t.Fatalf("prompt exactness %v, failed %d: every model's prompts must be counted as logged", p, sum.Requests.Failed)
	}
	want := map[string]int64{"big-llama": int64(counts["gpt-4o"]), "small-qwen": int64(counts["gpt-4o-mini"]),
		"sample-mistral": int64(counts["mistral-small"]), "sql-lora": int64(counts["gpt-4o-sql"])}
	for name, n := range want {
		if g := sum.Models[name]; g.Requests != n || g.TTFT.Count == 0 {
			t.Errorf("models[%s]: %+v, want %d requests", name, g, n)
		}
	}
	high, low := sum.SLOClasses["high"], sum.SLOClasses["low"]
	if high.Requests+low.Requests != sum.Requests.Total || high.Goodput == nil || high.Goodput.AllPct != 0 || low.Goodput.AllPct != 100 {
		t.Errorf("classes: high %+v low %+v", high, low)
	}
	rows, err := rowfile.ReadAll(filepath.Join(out, "requests.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if _, ok := want[r.Model]; !ok || (r.SLOClass != "high" && r.SLOClass != "low") {
			t.Errorf("row %s: model %q class %q", r.RequestID, r.Model, r.SLOClass)
		}
	}
	if !strings.Contains(stderr, "high.goodput") {
		t.Errorf("the failed requirement is not reported:\n%s", stderr)
	}
	// The terminal table and report.html set the classes and models side by side.
	page, _ := os.ReadFile(filepath.Join(out, "report.html"))
	for _, want := range []string{"slo class", "served model", "sql-lora"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the terminal table has no %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(string(page), `id="groups"`) || !strings.Contains(string(page), "<td>big-llama</td>") || !strings.Contains(string(page), "<td>high</td>") {
		t.Errorf("report.html has no section of the classes and models")
	}
	// replay report rebuilds the sections from the rows, each class judged by the run's limits.
	if code, _, stderr := runCLI(t, "report", out, "--quiet", "--require", "low.goodput>=99%,sql-lora.ttft.p99<=10s"); code != 0 {
		t.Errorf("report: exit %d\n%s", code, stderr)
	}
	if code, _, _ := runCLI(t, "report", out, "--quiet", "--require", "high.goodput>=99%"); code != 4 {
		t.Errorf("report --require high.goodput: exit %d, want 4", code)
	}
	var again analysis.Summary
	b, _ = os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(b, &again); err != nil || again.SLOClasses["high"].Goodput == nil || again.SLOClasses["high"].Goodput.LimitsMS["ttft"] != 0.001 {
		t.Errorf("rebuilt classes: %+v %v", again.SLOClasses, err)
	}
}

// TestRoutedUnmappedAndDryRun: a logged model left unmapped stops the run before anything is
// sent, naming every unmapped model with its count; --dry-run lists the log's models with
// their counts and targets.
func TestRoutedUnmappedAndDryRun(t *testing.T) {
	log, counts := routedLog(t)
	code, _, stderr := runCLI(t, "run", "--trace", log, "--format", "openai-log", "--tokenizer", testenv.SampleTokenizer(),
		"--model-map", "gpt-4o=big", "--out", t.TempDir())
	for _, name := range []string{"gpt-4o-mini", "mistral-small", "gpt-4o-sql"} {
		if want := fmt.Sprintf("%q (%d requests)", name, counts[name]); code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, stderr lacks %s:\n%s", code, want, stderr)
		}
	}
	if strings.Contains(stderr, `"gpt-4o" (`) || strings.Contains(stderr, "open-loop replay") {
		t.Errorf("a mapped model named, or the run started:\n%s", stderr)
	}
	code, stdout, stderr := runCLI(t, "ingest", "--trace", log, "--format", "openai-log", "--tokenizer", testenv.SampleTokenizer(),
		"--out", filepath.Join(t.TempDir(), "t.parquet"))
	if want := "replay ingest: models: gpt-4o 6, gpt-4o-mini 6, gpt-4o-sql 6, mistral-small 6"; code != 0 || !strings.Contains(stderr, want) || !strings.HasPrefix(stdout, `{"records":24,`) {
		t.Errorf("ingest: exit %d, stderr lacks %q:\n%s\nstdout %s", code, want, stderr, stdout)
	}
	code, stdout, stderr = runCLI(t, "run", "--trace", log, "--format", "openai-log", "--tokenizer", testenv.SampleTokenizer(),
		"--model-map", routedMap(t), "--dry-run")
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{fmt.Sprintf("gpt-4o-mini: %d requests -> small-qwen", counts["gpt-4o-mini"]),
		fmt.Sprintf("gpt-4o-sql: %d requests -> sql-lora", counts["gpt-4o-sql"]), fmt.Sprintf("mistral-small: %d requests -> sample-mistral", counts["mistral-small"])} {
		if !strings.Contains(stdout, want) {
			t.Errorf("dry run lacks %q:\n%s", want, stdout)
		}
	}
}

// TestHeadersLoggedWithoutHeaders: --headers logged over a trace that holds none says so.
func TestHeadersLoggedWithoutHeaders(t *testing.T) {
	code, _, stderr := runCLI(t, "run", "--headers", "logged", "--limit", "5", "--dry-run")
	if code != 0 || !strings.Contains(stderr, "no request of the window holds logged headers") {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "run", "--headers", "all", "--dry-run"); code == 0 || !strings.Contains(stderr, "--headers") {
		t.Errorf("--headers all: exit %d:\n%s", code, stderr)
	}
}
