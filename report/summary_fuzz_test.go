package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/llm-replay/replay/analysis"
)

// FuzzParseSummary: a hand-edited summary.json either fails with an error naming the file or
// parses into something the table writer can print.
func FuzzParseSummary(f *testing.F) {
	f.Add([]byte(`{"run":{"speed":2,"slo":"ttft=1s"},"requests":{"total":1,"ok":1,"failed":0}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "summary.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := analysis.ReadSummary(path)
		if err != nil {
			return
		}
		if err := WriteTable(&bytes.Buffer{}, s); err != nil {
			t.Fatal(err)
		}
	})
}
