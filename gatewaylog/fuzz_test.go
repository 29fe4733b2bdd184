package gatewaylog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzSchemas feeds one record to every schema's reader and sniffer: none may panic, and a
// record read without error has counts that are not negative and an arrival.
func FuzzSchemas(f *testing.F) {
	for _, s := range schemas {
		for _, ext := range []string{".jsonl", ".log"} { // JSON records, a server log's lines
			b, err := os.ReadFile(filepath.Join("testdata", s.Format+ext))
			if err != nil {
				continue
			}
			for _, line := range strings.SplitN(string(b), "\n", 3)[:2] {
				f.Add(line)
			}
		}
	}
	f.Fuzz(func(t *testing.T, line string) {
		for _, s := range schemas {
			s.Sniff([]byte(line))
			e, err := readOne(s, []byte(line), 2025)
			if err != nil {
				continue
			}
			if e.PromptTokens < 0 || e.OutputTokens < 0 || e.CachedTokens < -1 {
				t.Errorf("%s: negative counts %+v", s.Format, e)
			}
			if _, err := e.Arrival(); err != nil {
				t.Errorf("%s: read without an arrival: %v", s.Format, err)
			}
		}
	})
}
