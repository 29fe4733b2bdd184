package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/gen"
)

// TestGenCommand writes a trace with every flag, checks each line's Mooncake fields, that it
// equals gen.WriteJSONL's bytes for the same config, and the summary on stderr.
func TestGenCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "chat.jsonl")
	code, _, stderr := runCLI(t, "gen", "--out", out, "--shape", "chat", "--duration", "5m", "--rate", "2", "--seed", "9", "--block-size", "256")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	n, sessions := 0, 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l struct {
			Timestamp    *int64  `json:"timestamp"`
			InputLength  int     `json:"input_length"`
			OutputLength int     `json:"output_length"`
			HashIDs      []int   `json:"hash_ids"`
			SessionID    *string `json:"session_id"`
			Turn         *int    `json:"turn"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		if l.Timestamp == nil || len(l.HashIDs) != (l.InputLength+255)/256 || l.OutputLength < 1 || (l.SessionID == nil) != (l.Turn == nil) {
			t.Fatalf("line %d: %s", n+1, sc.Bytes())
		}
		if l.SessionID != nil {
			sessions++
		}
		n++
	}
	if n < 300 || sessions == 0 {
		t.Fatalf("%d lines, %d in sessions", n, sessions)
	}
	var want bytes.Buffer
	if err := gen.WriteJSONL(&want, gen.Config{Shape: "chat", Duration: 5 * time.Minute, Rate: 2, Seed: 9, BlockSize: 256}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, want.Bytes()) {
		t.Error("the file differs from gen.WriteJSONL's output for the same flags")
	}
	if !strings.Contains(stderr, "records") || !strings.Contains(stderr, "sessions") || !strings.Contains(stderr, "ideal prefix hit rate") {
		t.Errorf("stderr %q lacks the summary", stderr)
	}
}

// TestGenCommandStdout: --out - writes the default trace to stdout, the summary to stderr.
func TestGenCommandStdout(t *testing.T) {
	code, stdout, stderr := runCLI(t, "gen", "--out", "-")
	var want bytes.Buffer
	if err := gen.WriteJSONL(&want, gen.Default()); err != nil {
		t.Fatal(err)
	}
	if code != 0 || stdout != want.String() || !strings.Contains(stderr, "-> -") {
		t.Fatalf("exit %d, %d bytes of stdout (want %d), stderr %q", code, len(stdout), want.Len(), stderr)
	}
}

// TestGenCommandErrors: bad flags exit non-zero, name the flag and leave no file.
func TestGenCommandErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "t.jsonl")
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--shape", "batch"}, 1, "--shape"},
		{[]string{"--rate", "0"}, 1, "--rate"},
		{[]string{"--rate", "-2"}, 1, "--rate"},
		{[]string{"--duration", "0s"}, 1, "--duration"},
		{[]string{"--block-size", "0"}, 1, "--block-size"},
		{[]string{"--rate", "5000", "--duration", "24h"}, 1, "more than"},
		{[]string{"--seed", "-1"}, 2, "--seed"},
		{[]string{"--bogus"}, 2, "bogus"},
		{[]string{"extra"}, 1, "unexpected"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, append([]string{"gen", "--out", out}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d naming %q", c.args, code, stderr, c.code, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v: left %s behind", c.args, out)
		}
	}
	if code, _, stderr := runCLI(t, "gen"); code != 1 || !strings.Contains(stderr, "--out") {
		t.Errorf("without --out: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCLI(t, "gen", "--help"); code != 0 || !strings.Contains(stderr, "Example:") || !strings.Contains(stderr, "replay gen --out") {
		t.Errorf("--help: exit %d, %q", code, stderr)
	}
}
