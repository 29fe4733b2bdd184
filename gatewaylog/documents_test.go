package gatewaylog

import (
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
