package gatewaylog

import (
	"os"
	"strings"
	"testing"
)

// FuzzSchemas feeds one record to every schema's reader and sniffer: none may panic, and a
// record read without error has counts that are not negative and an arrival.
func FuzzSchemas(f *testing.F) {
	for _, s := range schemas {
		for _, path := range fixtures(f, s.Format) {
			b, err := os.ReadFile(path)
			if err != nil {
				f.Fatal(err)
			}
			lines := strings.SplitN(string(b), "\n", 3)
			for _, line := range lines[:min(2, len(lines))] {
				f.Add(line)
			}
		}
	}
	f.Fuzz(func(t *testing.T, line string) {
		for _, s := range schemas {
			s.Sniff([]byte(line))
			e, err := readOne(s, []byte(line), 2025, nil)
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
