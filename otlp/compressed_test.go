package otlp

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/llm-replay/replay/ingest"
)

// TestReadGzipped: the Collector's file, gzip'd as a log shipper leaves it, reads (detected
// and named) as the plain file does.
func TestReadGzipped(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join("testdata", "collector.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(plain)
	w.Close()
	path := filepath.Join(t.TempDir(), "spans.json")
	if err := os.WriteFile(path, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	want, _, err := ingest.ReadAll(filepath.Join("testdata", "collector.jsonl"), ingest.Options{Format: Format, OnError: ingest.OnErrorSkip})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{Format, ingest.FormatAuto} {
		got, _, err := ingest.ReadAll(path, ingest.Options{Format: f, OnError: ingest.OnErrorSkip})
		if err != nil || len(got) != len(want) || len(got) == 0 {
			t.Fatalf("as %s: %d records, %v; want %d", f, len(got), err, len(want))
		}
		for i := range got {
			if got[i].Timestamp != want[i].Timestamp || got[i].PromptTokens != want[i].PromptTokens {
				t.Fatalf("as %s: record %d %+v, want %+v", f, i, got[i], want[i])
			}
		}
	}
}
