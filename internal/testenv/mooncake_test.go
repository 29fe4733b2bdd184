package testenv

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
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

// TestPairedTraceBytes: the shared paired-run trace is byte for byte the one the paired-run
// tests wrote by hand before it was shared, so their figures did not move with it.
func TestPairedTraceBytes(t *testing.T) {
	var b strings.Builder
	rng := rand.New(rand.NewPCG(19, 2))
	next, at := 1000, 0.0
	for i := range 200 {
		in := 100 + rng.IntN(900)
		hs := []string{fmt.Sprint(i / 8)}
		for range (in+511)/512 - 1 {
			hs = append(hs, fmt.Sprint(next))
			next++
		}
		fmt.Fprintf(&b, `{"timestamp": %.3f, "input_length": %d, "output_length": %d, "hash_ids": [%s]}`+"\n",
			at, in, 8+rng.IntN(17), strings.Join(hs, ", "))
		at += rng.ExpFloat64() * 1000 / 20
	}
	raw, err := os.ReadFile(PairedTrace(t, 200, 20))
	if err != nil {
		t.Fatal(err)
	}
	// %.3f keeps trailing zeros (7.500) that the shared writer drops: compare the values.
	type line struct {
		Timestamp    float64 `json:"timestamp"`
		InputLength  int     `json:"input_length"`
		OutputLength int     `json:"output_length"`
		HashIDs      []int   `json:"hash_ids"`
	}
	hand, shared := strings.Split(strings.TrimSpace(b.String()), "\n"), strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(hand) != len(shared) {
		t.Fatalf("%d lines, want %d", len(shared), len(hand))
	}
	for i := range hand {
		var h, s line
		if err := json.Unmarshal([]byte(hand[i]), &h); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(shared[i]), &s); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(h, s) {
			t.Fatalf("line %d: %s, want %s", i+1, shared[i], hand[i])
		}
	}
}
