package testenv

import (
	"crypto/sha256"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestMooncakeJSONL: the lines are Mooncake's shape, a session's turn is written even when 0,
// and a record without hash ids has an empty list.
func TestMooncakeJSONL(t *testing.T) {
	got := string(MooncakeJSONL([]MooncakeRecord{
		{Timestamp: 12.3456789, InputLength: 600, OutputLength: 7, HashIDs: []int{0, 2}},
		{Timestamp: 20, InputLength: 10, OutputLength: 1, SessionID: `chat "1"`, Turn: 0},
	}))
	want := `{"timestamp": 12.346, "input_length": 600, "output_length": 7, "hash_ids": [0, 2]}` + "\n" +
		`{"timestamp": 20, "input_length": 10, "output_length": 1, "hash_ids": [], "session_id": "chat \"1\"", "turn": 0}` + "\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestPairedTraceBytes: the shared paired-run trace is pinned by its bytes. When it replaced the
// two hand-written copies (cmd/replay's and runner's writePairedTrace) every record was checked
// equal to theirs, field by field, so the paired-run tests' figures did not move with it.
func TestPairedTraceBytes(t *testing.T) {
	raw, err := os.ReadFile(PairedTrace(t, 200, 20))
	if err != nil {
		t.Fatal(err)
	}
	const want = "58746657a35c8f58f73937d29ed53a11b148a69ec8bd355d2cdb2455ae1753df"
	if got := fmt.Sprintf("%x", sha256.Sum256(raw)); got != want || len(raw) != 17325 {
		t.Errorf("PairedTrace(200, 20): sha256 %s, %d bytes; want %s, 17325 bytes:\n%.300s", got, len(raw), want, raw)
	}
	if !strings.HasPrefix(string(raw), `{"timestamp": 0, "input_length": 863, "output_length": 12, "hash_ids": [0, 1000]}`+"\n"+
		`{"timestamp": 7.525, "input_length": 363, "output_length": 15, "hash_ids": [0]}`+"\n") {
		t.Errorf("PairedTrace starts %.200s", raw)
	}
}
