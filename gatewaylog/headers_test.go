package gatewaylog

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/trace"
)

// withField is the fixture's first record with one more member set at path (objects made as
// needed), written to a file of its own.
func withField(t *testing.T, fixture string, value any, path ...string) string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	sc.Scan()
	var rec map[string]any
	if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	m := rec
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[path[len(path)-1]] = value
	b, _ := json.Marshal(rec)
	out := filepath.Join(t.TempDir(), fixture)
	if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGatewayHeaders: LiteLLM's requester_custom_headers and Kong's request.headers become
// the record's headers, names in lower case, a repeated Kong header joined, every credential
// dropped as it is read.
func TestGatewayHeaders(t *testing.T) {
	for _, c := range []struct {
		fixture, format string
		value           any
		path            []string
		want            []trace.Header
	}{
		{"litellm.jsonl", "litellm", map[string]any{"x-session-id": "s-1", "X-Tier": "batch", "x-api-key": "sk-secret"},
			[]string{"metadata", "requester_custom_headers"}, []trace.Header{{Name: "x-session-id", Value: "s-1"}, {Name: "x-tier", Value: "batch"}}},
		{"kong-ai.jsonl", "kong-ai", map[string]any{"authorization": "Bearer sk-secret", "x-session-id": "s-2", "accept": []any{"a", "b"}},
			[]string{"request", "headers"}, []trace.Header{{Name: "accept", Value: "a, b"}, {Name: "x-session-id", Value: "s-2"}}},
	} {
		path := withField(t, c.fixture, c.value, c.path...)
		recs, _, err := ingest.ReadAll(path, ingest.Options{Format: c.format})
		if err != nil || len(recs) != 1 {
			t.Fatalf("%s: %d records, %v", c.fixture, len(recs), err)
		}
		got := recs[0].Headers
		if len(got) != len(c.want) {
			t.Fatalf("%s: headers %v, want %v", c.fixture, got, c.want)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: headers %v, want %v", c.fixture, got, c.want)
			}
		}
	}
}
