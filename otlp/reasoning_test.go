package otlp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/ingest"
)

// TestReadReasoning: a span's gen_ai.usage.reasoning.output_tokens (the GenAI conventions'
// registry, open-telemetry/semantic-conventions#3383: part of gen_ai.usage.output_tokens) is
// the record's reasoning count; a span without it has none; one over the output count is the
// line's error naming the attribute. The spans are the Collector's own (testdata/README.md),
// the client chat span given the attribute as the conventions define it.
func TestReadReasoning(t *testing.T) {
	good, err := os.ReadFile("testdata/collector.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSpace(string(good)), "\n")
	last := len(lines) - 1
	withReasoning := func(n string) string {
		const out = `{"key":"gen_ai.usage.output_tokens","value":{"intValue":"52"}}`
		if !strings.Contains(lines[last], out) {
			t.Fatal("the chat span's output count is not where the test expects it")
		}
		return strings.Replace(lines[last], out, out+`,{"key":"gen_ai.usage.reasoning.output_tokens","value":{"intValue":"`+n+`"}}`, 1)
	}
	write := func(last string) string {
		path := filepath.Join(t.TempDir(), "spans.jsonl")
		body := strings.Join(lines[:len(lines)-1], "") + strings.TrimRight(last, "\n") + "\n"
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	recs, _ := readAll(t, write(withReasoning("30")), ingest.Options{})
	chat, vllm := recs[6], recs[7]
	if chat.Options == nil || chat.Options.ReasoningTokens == nil || *chat.Options.ReasoningTokens != 30 || chat.OutputTokens != 52 {
		t.Errorf("chat span: %+v %+v", chat, chat.Options)
	}
	if vllm.Options.ReasoningTokens != nil {
		t.Errorf("vLLM span: reasoning %d, want none", *vllm.Options.ReasoningTokens)
	}
	path := write(withReasoning("53"))
	_, err = ingest.Open(path, ingest.Options{Format: Format})
	if want := `field "gen_ai.usage.reasoning.output_tokens": 53 reasoning tokens, more than the 52 output tokens`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}
