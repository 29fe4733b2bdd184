package otlp

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/trace"
)

func readAll(t *testing.T, path string, opts ingest.Options) ([]trace.Record, ingest.Counts) {
	t.Helper()
	opts.Format = Format
	r, err := ingest.Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var recs []trace.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return recs, r.Counts()
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
}

// The Collector's own file (testdata/README.md): replay's six spans, vLLM's llm_request span
// under its older attribute names, a client chat span; the HTTP server span skipped.
func TestReadCollectorFile(t *testing.T) {
	recs, counts := readAll(t, "testdata/collector.jsonl", ingest.Options{})
	if len(recs) != 8 || counts.Records != 8 || counts.Skipped != 1 || counts.Rejected != 0 {
		t.Fatalf("%d records, counts %+v", len(recs), counts)
	}
	for i := 1; i < len(recs); i++ {
		if recs[i].Timestamp < recs[i-1].Timestamp {
			t.Fatalf("record %d at %v before %v", i, recs[i].Timestamp, recs[i-1].Timestamp)
		}
	}
	if recs[0].Timestamp != 0 {
		t.Errorf("first record at %v", recs[0].Timestamp)
	}
	chat, vllm := recs[6], recs[7]
	if chat.PromptTokens != 97 || chat.OutputTokens != 52 || chat.Model != "Qwen/Qwen3-8B" || chat.SessionID != "conv_5j66UpCpwteGg4YSxUnt7lPY" ||
		chat.Options == nil || chat.Options.API != "chat" || chat.Options.Stream == nil || !*chat.Options.Stream || chat.Options.FinishReason != "stop" {
		t.Errorf("chat span: %+v %+v", chat, chat.Options)
	}
	if vllm.Timestamp-chat.Timestamp != 502*time.Millisecond {
		t.Errorf("vLLM span %v after the chat span, want 502ms", vllm.Timestamp-chat.Timestamp)
	}
	o := vllm.Options
	if vllm.PromptTokens != 1200 || vllm.OutputTokens != 143 || vllm.Model != "Qwen/Qwen3-8B" || vllm.SessionID != "" ||
		o == nil || o.MaxTokens != 256 || o.MaxTokensField != "max_tokens" || *o.Temperature != 0.7 || *o.TopP != 0.95 || o.API != "" {
		t.Errorf("vLLM span: %+v %+v", vllm, o)
	}
	for _, r := range recs[:6] { // replay's own spans
		if r.Model != "replay-sim" || r.Options == nil || r.Options.API != "completions" || r.PromptTokens <= 0 || r.Line < 1 || r.Source != "testdata/collector.jsonl" {
			t.Errorf("replay span: %+v %+v", r, r.Options)
		}
	}
}

// --map puts another attribute first for a field; a field spans cannot map is refused.
func TestReadMap(t *testing.T) {
	recs, _ := readAll(t, "testdata/collector.jsonl", ingest.Options{Map: map[string]string{"prompt_tokens": `["gen_ai.request.max_tokens"]`}})
	if recs[7].PromptTokens != 256 || recs[6].PromptTokens != 97 {
		t.Errorf("mapped prompt tokens %d, %d", recs[7].PromptTokens, recs[6].PromptTokens)
	}
	_, err := ingest.Open("testdata/collector.jsonl", ingest.Options{Format: Format, Map: map[string]string{"block_hashes": "x"}})
	if err == nil || !strings.Contains(err.Error(), "block_hashes") {
		t.Errorf("--map block_hashes: %v", err)
	}
}

// A malformed line fails with the file and line; a span without its prompt count names the
// attribute; --on-error skip counts and quarantines the line and keeps the others.
func TestReadMalformed(t *testing.T) {
	good, err := os.ReadFile("testdata/collector.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSpace(string(good)), "\n")
	noCount := strings.Replace(lines[len(lines)-1], `"gen_ai.usage.input_tokens"`, `"x.input_tokens"`, 1)
	for _, c := range []struct{ bad, want string }{
		{`{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":`, ":3: not an OTLP ExportTraceServiceRequest in JSON"},
		{noCount, `:3: field "gen_ai.usage.input_tokens": missing`},
		{strings.Replace(lines[len(lines)-1], `{"intValue":"97"}`, `{"intValue":"-97"}`, 1), `:3: field "gen_ai.usage.input_tokens": not a token count: -97`},
	} {
		path := filepath.Join(t.TempDir(), "bad.jsonl")
		body := lines[0] + lines[1] + strings.TrimRight(c.bad, "\n") + "\n" + lines[2]
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ingest.Open(path, ingest.Options{Format: Format})
		if err == nil || !strings.Contains(err.Error(), path+c.want) {
			t.Errorf("error %v, want %q", err, path+c.want)
		}
		q := filepath.Join(t.TempDir(), "q.jsonl")
		recs, counts := readAll(t, path, ingest.Options{OnError: ingest.OnErrorSkip, QuarantinePath: q})
		if counts.Rejected != 1 || len(recs) == 0 {
			t.Errorf("skip: %d records, %+v", len(recs), counts)
		}
		if b, _ := os.ReadFile(q); strings.TrimSpace(string(b)) != strings.TrimSpace(c.bad) {
			t.Errorf("quarantine holds %q", b)
		}
	}
}

// --format auto knows a Collector's file by its first line.
func TestDetect(t *testing.T) {
	r, err := ingest.Open("testdata/collector.jsonl", ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
}
