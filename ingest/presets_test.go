package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMooncakeSessionFields: the Mooncake preset reads session_id and turn when a line has
// them (replay gen writes them on multi-turn sessions) and reads a real Mooncake line, which
// has neither, as before; auto-detection and --format mooncake agree.
func TestMooncakeSessionFields(t *testing.T) {
	lines := strings.Join([]string{
		`{"timestamp": 27482, "input_length": 6955, "output_length": 52, "hash_ids": [46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 2353, 2354]}`,
		`{"timestamp": 30535, "input_length": 700, "output_length": 26, "hash_ids": [0, 1], "session_id": "chat-1", "turn": 0}`,
		`{"timestamp": 40535, "input_length": 1200, "output_length": 9, "hash_ids": [0, 2, 3], "session_id": "chat-1", "turn": 1}`,
		`{"timestamp": 41000, "input_length": 10, "output_length": 1, "hash_ids": [4], "session_id": 17, "turn": 3}`,
	}, "\n") + "\n"
	path := filepath.Join(t.TempDir(), "sessions.jsonl")
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		session string
		turn    int
	}{{"", 0}, {"chat-1", 0}, {"chat-1", 1}, {"17", 3}}
	for _, format := range []string{FormatAuto, FormatMooncake} {
		recs, _, err := ReadAll(path, Options{Format: format})
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != len(want) {
			t.Fatalf("%s: %d records", format, len(recs))
		}
		for i, w := range want {
			r := recs[i]
			if r.SessionID != w.session || r.Turn != w.turn || r.BlockSize != 512 {
				t.Errorf("%s line %d: session %q turn %d (block size %d), want %q %d", format, i+1, r.SessionID, r.Turn, r.BlockSize, w.session, w.turn)
			}
		}
		if r := recs[0]; r.PromptTokens != 6955 || r.OutputTokens != 52 || len(r.BlockHashes) != 14 || r.Timestamp != 0 {
			t.Errorf("%s: the session-less line read as %+v", format, r)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte(`{"timestamp": 1, "input_length": 10, "output_length": 1, "hash_ids": [0], "turn": "first"}`+"\n"), 0o644)
	if _, _, err := ReadAll(bad, Options{}); err == nil || !strings.Contains(err.Error(), `field "turn"`) {
		t.Errorf("a text turn: %v, want an error naming the field", err)
	}
}
