package requestlog

import (
	"testing"
	"time"
)

// FuzzParseLine: no line makes the parser panic, and an accepted line has a request and a way
// to know its output length. Seeds: testdata/fuzz/FuzzParseLine.
func FuzzParseLine(f *testing.F) {
	f.Add([]byte(`{"timestamp":"2026-01-01T00:00:00Z","request":{"messages":[{"role":"user","content":"hi"}]},"response":{"usage":{"completion_tokens":3}}}`))
	m, err := buildMapping(map[string]string{"session_id": "request.metadata.session"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, unit := range []time.Duration{time.Second, time.Nanosecond} {
			e, err := parseLine(data, m, unit)
			if err != nil {
				continue
			}
			if !e.chat && e.promptIDs == nil && e.messages != nil {
				t.Fatalf("completion with messages: %+v", e)
			}
			if e.chat && len(e.messages) == 0 {
				t.Fatal("chat request without messages accepted")
			}
			if e.usageCompletion < 0 && !e.hasResponse {
				t.Fatal("no output length, yet accepted")
			}
		}
	})
}
