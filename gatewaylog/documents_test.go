package gatewaylog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/ingest"
)

// TestDocumentErrors: a bad record of pretty-printed documents or of an array is named by the
// file and the line the record begins on; a file cut inside its array is an error naming the
// file, not a shorter log.
func TestDocumentErrors(t *testing.T) {
	good := string(dayRecord(1767225600, "a", "u", 100, 0, 10, "acompletion", false))
	badCount := strings.Replace(good, `"prompt_tokens":100`, `"prompt_tokens":"many"`, 1)
	pretty := func(recs ...string) string {
		var b []byte
		for _, r := range recs {
			b = append(b, jsonForm(t, [][]byte{[]byte(r)}, "pretty")...)
		}
		return string(b)
	}
	goodLines := strings.Count(pretty(good), "\n")
	cases := []struct {
		name, content string
		want          []string
	}{
		{"bad-count.json", pretty(good, badCount), []string{"bad-count.json:" + itoa(goodLines+1) + ":", "prompt_tokens"}},
		{"bad-syntax.json", pretty(good) + "{\n  \"id\": \"b\",\n  \"call_type\" \"acompletion\"\n}\n", []string{"bad-syntax.json:" + itoa(goodLines+1) + ":", "not a JSON record"}},
		{"cut.json", "[\n" + good + ",\n" + good[:40], []string{"cut.json", "line 3", "ends inside"}},
		{"after.json", "[" + good + "] x", []string{"after.json", "after the array"}},
	}
	for _, c := range cases {
		path := filepath.Join(t.TempDir(), c.name)
		if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := ingest.ReadAll(path, ingest.Options{Format: "litellm"})
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: err = %v, want %q in it", c.name, err, w)
			}
		}
	}
}

// TestOverMemoryBudget: a log held whole to be sorted that would pass the memory budget is
// refused, naming the file and the fix, not read until the process is killed.
func TestOverMemoryBudget(t *testing.T) {
	path := filepath.Join("testdata", "litellm.jsonl")
	_, _, err := ingest.ReadAll(path, ingest.Options{Format: "litellm", MemoryBudget: 2 * heldBytes})
	if !errors.Is(err, ingest.ErrOverMemory) || !strings.Contains(err.Error(), "litellm.jsonl") || !strings.Contains(err.Error(), "split the file") {
		t.Fatalf("err = %v, want the budget's refusal naming the file and the fix", err)
	}
	if _, _, err := ingest.ReadAll(path, ingest.Options{Format: "litellm", OnError: ingest.OnErrorSkip, MemoryBudget: 100 * heldBytes}); err != nil {
		t.Fatalf("within the budget: %v", err)
	}
}
