package gatewaylog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/trace"
)

// TestHelicone reads the request-export fixture: ClickHouse's zoneless and RFC 3339 creation
// times, sorted (the completions call started first); a row with only its response time
// starting delay_ms earlier; the whole prompt as prompt_tokens (which excludes them) plus cache
// reads and writes (176 + 1024; 300 + 200 + 100); a null cache count as unknown and a zero as
// known; the API from the path or the provider's URL; bodies as objects, as JSON strings and as
// the placeholder without bodies; a custom tool event and a response served from Helicone's
// cache skipped; a bad count rejected.
func TestHelicone(t *testing.T) {
	checkRecords(t, "helicone.jsonl", "helicone", []want{
		{0, 50, 10, 0, "qwen3-8b", trace.APICompletions, "", 0},
		{247 * time.Millisecond, 1200, 80, 1024, "gpt-4o-mini", trace.APIChat, "true", 256},
		{900 * time.Millisecond, 600, 40, 200, "claude-sonnet-4-5", trace.APIMessages, "false", 1024},
		{1800 * time.Millisecond, 64, 0, -1, "text-embedding-3-small", trace.APIEmbeddings, "", 0},
	}, 2, 1)
	checkKeys(t, "helicone.jsonl", "helicone", []string{"", "sess-h1", "bob", ""})
	checkRejected(t, "helicone.jsonl", "helicone", 7, "completion_tokens")
}

// TestHeliconeArray reads the export tool's --format json output, one indented array, with
// the format named (its first line, "[", says nothing to detect).
func TestHeliconeArray(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "helicone.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	path := filepath.Join(t.TempDir(), "output.json")
	if err := os.WriteFile(path, []byte("[\n"+lines[0]+",\n"+lines[2]+"\n]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, _, err := ingest.ReadAll(path, ingest.Options{Format: "helicone"})
	if err != nil || len(recs) != 2 || recs[1].Timestamp != 653*time.Millisecond || recs[1].PromptTokens != 600 {
		t.Fatalf("array export: %d records %v", len(recs), err)
	}
}
