package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSplitPath(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"usage.prompt_tokens", "[usage prompt_tokens]"},
		{"ts", "[ts]"},
		{`["gen_ai.usage.input_tokens"]`, "[gen_ai.usage.input_tokens]"},
		{`attributes["gen_ai.request.model"]`, "[attributes gen_ai.request.model]"},
		{`attributes.["a.b"].c`, "[attributes a.b c]"},
		{`a["b.c"]["d"]`, "[a b.c d]"},
		{`["q\"uote]"]`, `[q"uote]]`},
	} {
		got, err := SplitPath(c.in)
		if err != nil || fmt.Sprint(got) != c.want {
			t.Errorf("%s: %q %v, want %s", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "a..b", "a.", ".a", `["a.b"`, `[a.b]`, `["a"]x`, `["a"].`} {
		if got, err := SplitPath(bad); err == nil {
			t.Errorf("%q split as %q", bad, got)
		}
	}
}

func FuzzSplitPath(f *testing.F) {
	f.Add(`a["b.c"].d`)
	f.Add(`["\u00e9"]`)
	f.Fuzz(func(t *testing.T, s string) {
		parts, err := SplitPath(s)
		if err == nil && len(parts) == 0 {
			t.Errorf("%q: no parts and no error", s)
		}
	})
}

// TestMapDottedKeysAndJSONStrings: --map reaches a key with dots (Envoy AI Gateway's
// gen_ai.usage.* access-log keys) and fields inside JSON held as a string (LiteLLM's spend
// logs keep metadata so), escaped or not; a string that is not JSON leaves the field missing.
func TestMapDottedKeysAndJSONStrings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.jsonl")
	lines := `{"start_time":"2025-01-24T09:20:46.847Z","gen_ai.usage.input_tokens":120,"gen_ai.usage.output_tokens":8,"metadata":"{\"usage\":{\"cached\":96},\"user\":\"u\\u00e9\"}"}
{"start_time":"2025-01-24T09:20:47Z","gen_ai.usage.input_tokens":30,"gen_ai.usage.output_tokens":3,"metadata":"{\"usage\":{\"cached\":0}}"}
{"start_time":"2025-01-24T09:20:48Z","gen_ai.usage.input_tokens":30,"gen_ai.usage.output_tokens":3,"metadata":"not json"}
`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := ParseMap(`timestamp=start_time,prompt_tokens=["gen_ai.usage.input_tokens"],output_tokens=["gen_ai.usage.output_tokens"],cached_tokens=metadata.usage.cached,session_id=metadata.user`)
	if err != nil {
		t.Fatal(err)
	}
	recs, _, err := ReadAll(path, Options{Format: FormatJSONL, Map: m})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || recs[0].PromptTokens != 120 || recs[0].OutputTokens != 8 || *recs[0].Options.CachedTokens != 96 || recs[0].SessionID != "ué" ||
		*recs[1].Options.CachedTokens != 0 || recs[2].Options != nil || recs[1].Timestamp != 153*time.Millisecond {
		t.Fatalf("%+v", recs)
	}
	if _, err := ParseMap(`prompt_tokens=["gen_ai.usage`); err == nil {
		t.Error("an unclosed bracket accepted")
	}
}
