package gatewaylog

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/trace"
)

// checkKeys reads a fixture in format (and auto-detected) and holds each record's session to
// the pseudonym of the logged key want gives ("" where the record replays unshared: no cached
// count logged).
func checkKeys(t *testing.T, file, format string, keys []string) {
	t.Helper()
	for _, f := range []string{format, ingest.FormatAuto} {
		recs, _, err := ingest.ReadAll(filepath.Join("testdata", file), ingest.Options{Format: f, OnError: ingest.OnErrorSkip})
		if err != nil {
			t.Fatalf("%s as %s: %v", file, f, err)
		}
		if len(recs) != len(keys) {
			t.Fatalf("%s as %s: %d records, want %d", file, f, len(recs), len(keys))
		}
		for i, k := range keys {
			if got := recs[i].SessionID; got != pseudonym(k) {
				t.Errorf("%s record %d: session %q, want the pseudonym of %q", file, i, got, k)
			}
		}
	}
}

// TestLangfuse reads the observations-export fixture: ClickHouse's zoneless DateTime64 at ms
// and µs and RFC 3339 starts, sorted (the classify call started first); the prompt as Langfuse
// sums its input keys (input excludes the cached tokens: 176 uncached + 1024 cached, and 300 +
// 200 read + 100 written), the output with its reasoning tokens; counts quoted as ClickHouse
// writes 64-bit numbers; model_parameters as a JSON string and as an object, a cap of
// "Infinity" read as none, max_completion_tokens, stream as a string and a bool; an embedding;
// SPAN and EVENT observations skipped; a bad count rejected.
func TestLangfuse(t *testing.T) {
	checkRecords(t, "langfuse.jsonl", "langfuse", []want{
		{0, 50, 10, -1, "qwen3-8b", "", "false", 512},
		{247 * time.Millisecond, 1200, 100, 1024, "gpt-4o-mini", "", "true", 256},
		{900 * time.Millisecond, 600, 40, 200, "claude-sonnet-4-5", "", "", 0},
		{1400 * time.Millisecond, 64, 0, -1, "text-embedding-3-small", trace.APIEmbeddings, "", 0},
	}, 2, 1)
	checkKeys(t, "langfuse.jsonl", "langfuse", []string{"", "sess-a", "u-2", ""})
	_, _, err := ingest.ReadAll(filepath.Join("testdata", "langfuse.jsonl"), ingest.Options{Format: "langfuse"})
	if err == nil || !strings.Contains(err.Error(), "langfuse.jsonl:7") || !strings.Contains(err.Error(), "usage_details.input") {
		t.Errorf("a bad count: %v", err)
	}
}

// TestLangfuseUsage: the sums follow Langfuse's key rule, and a generation without an output
// count, or any usage at all, is rejected rather than replayed as empty.
func TestLangfuseUsage(t *testing.T) {
	for _, c := range []struct {
		rec, err string
	}{
		{`{"type":"GENERATION","start_time":"2025-01-24 09:20:46.847","usage_details":{"input":5}}`, "usage_details.output"},
		{`{"type":"GENERATION","start_time":"2025-01-24 09:20:46.847","usage_details":{}}`, "usage_details.input"},
		{`{"type":"GENERATION","start_time":"2025-01-24 09:20:46.847","usage_details":{"input":5,"output":1},"model_parameters":{"temperature":"NaN"}}`, "model_parameters.temperature"},
		{`{"type":"GENERATION","usage_details":{"input":5,"output":1}}`, "start_time"},
	} {
		_, err := readOne(langfuseSchema, []byte(c.rec), 2025, nil)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, want an error naming %s", c.rec, err, c.err)
		}
	}
	e, err := readOne(langfuseSchema, []byte(`{"type":"GENERATION","start_time":"2025-01-24T09:20:46Z","usage_details":{"input":10,"input_audio_tokens":3,"Input_Cached_Tokens":4,"output":2,"output_audio_tokens":1,"total":20}}`), 2025, nil)
	if err != nil || e.PromptTokens != 17 || e.OutputTokens != 3 || e.CachedTokens != -1 {
		t.Errorf("sums: %+v %v", e, err)
	}
}
