package ingest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/llm-replay/replay/trace"
)

// TestCachedPrefixesShareTheLoggedTokens: each record shares its logged cached tokens, to the
// block, with the latest earlier record of its session long enough to hold them; never its
// last token; a count nothing earlier can hold is counted unplaced; other sessions share nothing.
func TestCachedPrefixesShareTheLoggedTokens(t *testing.T) {
	n := func(v int) *int { return &v }
	recs := []trace.Record{
		{PromptTokens: 100, SessionID: "a", Options: &trace.Options{CachedTokens: n(0)}},  // 7 blocks
		{PromptTokens: 300, SessionID: "a", Options: &trace.Options{CachedTokens: n(96)}}, // 6 of the first's
		{PromptTokens: 50, SessionID: "a", Options: &trace.Options{CachedTokens: n(40)}},  // 2 of the second's
		{PromptTokens: 64, SessionID: "b", Options: &trace.Options{CachedTokens: n(64)}},  // nothing earlier in b
		{PromptTokens: 64, SessionID: "b", Options: &trace.Options{CachedTokens: n(64)}},  // 3 blocks: not the last token's
		{PromptTokens: 64, SessionID: "c"},                                                // no count: left alone
	}
	var c CachedPrefixes
	for i := range recs {
		c.Apply(&recs[i])
	}
	shared := func(a, b int) int {
		k := 0
		for k < min(len(recs[a].BlockHashes), len(recs[b].BlockHashes)) && recs[a].BlockHashes[k] == recs[b].BlockHashes[k] {
			k++
		}
		return k
	}
	for _, tc := range []struct{ a, b, want int }{{0, 1, 6}, {1, 2, 2}, {0, 2, 2}, {0, 3, 0}, {3, 4, 3}, {1, 4, 0}} {
		if got := shared(tc.a, tc.b); got != tc.want {
			t.Errorf("records %d and %d share %d blocks, want %d", tc.a, tc.b, got, tc.want)
		}
	}
	for i, want := range []int{7, 19, 4, 4, 4, 0} {
		if len(recs[i].BlockHashes) != want || (want > 0 && recs[i].BlockSize != CachedBlockSize) {
			t.Errorf("record %d: %d hashes of %d tokens, want %d", i, len(recs[i].BlockHashes), recs[i].BlockSize, want)
		}
	}
	if c.Unplaced != 1 {
		t.Errorf("unplaced %d, want 1 (b's first)", c.Unplaced)
	}
}

// TestCachedTokensField: --map cached_tokens=... fills Options.CachedTokens and gives hashes.
func TestCachedTokensField(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.jsonl")
	lines := `{"t":1,"u":{"in":100,"out":5,"c":0},"s":"x"}
{"t":2,"u":{"in":200,"out":5,"c":96},"s":"x"}
{"t":3,"u":{"in":50,"out":5},"s":"x"}
`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, _, err := ReadAll(path, Options{Format: FormatJSONL, Map: map[string]string{
		"timestamp": "t", "prompt_tokens": "u.in", "output_tokens": "u.out", "cached_tokens": "u.c", "session_id": "s"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || *recs[1].Options.CachedTokens != 96 || len(recs[1].BlockHashes) != 13 || recs[1].BlockHashes[5] != recs[0].BlockHashes[5] || recs[1].BlockHashes[6] == recs[0].BlockHashes[6] {
		t.Fatalf("%+v", recs)
	}
	if recs[2].Options != nil || recs[2].BlockHashes != nil {
		t.Errorf("a row without a cached count got %+v", recs[2])
	}
}
