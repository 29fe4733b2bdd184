package gatewaylog

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/llm-replay/replay/ingest"
)

// TestExamples: every source's --format help example is a record its reader turns into one
// request.
func TestExamples(t *testing.T) {
	for _, s := range Schemas() {
		if s.Reads == "" || s.Example == "" {
			t.Errorf("%s: no Reads or Example for --format help", s.Format)
			continue
		}
		path := filepath.Join(t.TempDir(), s.Format+".log")
		if err := os.WriteFile(path, []byte(s.Example+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Read(path, s, Options{Options: ingest.Options{Format: s.Format}, Year: 2025})
		if err != nil {
			t.Errorf("%s: its example: %v", s.Format, err)
			continue
		}
		n := 0
		for _, err := range ingest.All(r) {
			if err != nil {
				t.Errorf("%s: its example: %v", s.Format, err)
			}
			n++
		}
		r.Close()
		if n != 1 {
			t.Errorf("%s: its example read as %d requests, want 1", s.Format, n)
		}
	}
}
