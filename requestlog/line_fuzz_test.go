package requestlog

import (
	"testing"
	"time"

	"github.com/llm-replay/replay/trace"
)

// FuzzParseLine: no line makes the parser panic, and an accepted line has a request and a way
// to know its output length. Seeds: testdata/fuzz/FuzzParseLine.
func FuzzParseLine(f *testing.F) {
	f.Add([]byte(`{"timestamp":"2026-01-01T00:00:00Z","request":{"messages":[{"role":"user","content":"hi"}]},"response":{"usage":{"completion_tokens":3}}}`))
	f.Add([]byte(`{"timestamp":5,"status":499,"duration_ms":12.5,"request":{"stream":false,"temperature":0.2,"stop":"x","n":2,"tools":[{"type":"function","function":{"name":"f"}}],"messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":"ok"}]}}`))
	f.Add([]byte(`{"timestamp":5,"cancelled":true,"end_timestamp":6,"request":{"prompt":"x","logprobs":2,"response_format":{"type":"json_object"}},"response":{"choices":[{"text":"a"},{"text":"b"}]}}`))
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
			if e.usageCompletion < 0 && !e.hasResponse && !e.opts.Cancelled {
				t.Fatal("no output length, yet accepted")
			}
			if e.opts == nil || trace.ChatFamily(e.opts.API) != e.chat {
				t.Fatalf("options %+v for a chat request %v", e.opts, e.chat)
			}
		}
	})
}
