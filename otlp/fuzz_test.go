package otlp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/llm-replay/replay/ingest"
)

// FuzzRead: no input panics the reader; what it accepts has counts from 0 up and records in
// start order (seeds in testdata/fuzz/FuzzRead).
func FuzzRead(f *testing.F) {
	if b, err := os.ReadFile("testdata/collector.jsonl"); err == nil {
		f.Add(b)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "in.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, onError := range []string{ingest.OnErrorFail, ingest.OnErrorSkip} {
			r, err := Read(path, ingest.Options{OnError: onError})
			if err != nil {
				continue
			}
			var last int64 = -1
			for {
				rec, err := r.Next()
				if err != nil {
					break
				}
				if int64(rec.Timestamp) < last || rec.PromptTokens < 0 || rec.OutputTokens < 0 {
					t.Fatalf("record %+v after %d", rec, last)
				}
				last = int64(rec.Timestamp)
			}
			_ = r.Close()
		}
	})
}
