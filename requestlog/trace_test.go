package requestlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/internal/testenv"
)

// TestIngestOpen: ingest.Open reads a request log, detected or named, through the reader this
// package registers, counted with Options.Tokenizer; without one it says what is missing.
func TestIngestOpen(t *testing.T) {
	log := filepath.Join(t.TempDir(), "gateway.jsonl")
	text := `{"timestamp":0,"request":{"messages":[{"role":"user","content":"Hello there"}]},"response":{"usage":{"completion_tokens":4}}}
{"timestamp":1,"request":{"prompt":"Once upon a time"},"response":{"usage":{"completion_tokens":2}}}
{"timestamp":2,"request":{"nothing":1},"response":{}}
`
	if err := os.WriteFile(log, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{ingest.FormatAuto, ingest.FormatOpenAILog} {
		recs, c, err := ingest.ReadAll(log, ingest.Options{Format: format, Tokenizer: testenv.SampleTokenizer(), OnError: ingest.OnErrorSkip, BlockSize: 4})
		if err != nil || len(recs) != 2 || c.Records != 2 || c.Rejected != 1 || len(c.Errors) != 1 {
			t.Fatalf("format %s: %d records, counts %+v, %v", format, len(recs), c, err)
		}
		if recs[0].PromptTokens == 0 || recs[0].OutputTokens != 4 || recs[0].BlockSize != 4 || recs[1].Timestamp.Seconds() != 1 {
			t.Errorf("format %s: records %+v", format, recs)
		}
	}
	_, err := ingest.Open(log, ingest.Options{})
	if err == nil || !strings.Contains(err.Error(), "is a request log: reading it needs --tokenizer") {
		t.Fatalf("no tokenizer: %v", err)
	}
}
