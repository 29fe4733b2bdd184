package main

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// --progress json writes lines that parse, and its last line's counts are the summary's.
func TestProgressJSON(t *testing.T) {
	bin := replayBin(t)
	out := t.TempDir()
	cmd := exec.Command(bin, "run", "--trace", writeRateTrace(t, 120, 40, 4), "--progress", "json", "--max-lateness", "0",
		"--sim-fault-error-rate", "0.2", "--max-error-rate", "1", "--out", out)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var last map[string]float64
	n := 0
	for _, line := range strings.Split(stderr.String(), "\n") {
		if !strings.HasPrefix(line, "{") {
			continue
		}
		last = nil
		if err := json.Unmarshal([]byte(line), &last); err != nil {
			t.Fatalf("progress line %q: %v", line, err)
		}
		n++
	}
	if n == 0 {
		t.Fatalf("no JSON progress line:\n%s", stderr.String())
	}
	s := readRunSummary(t, out)
	if int64(last["done"]) != s.Requests.Total || int64(last["errors"]) != s.Requests.Failed || int64(last["sent"]) != s.Requests.Total {
		t.Fatalf("last progress line %v; summary total %d failed %d", last, s.Requests.Total, s.Requests.Failed)
	}
	t.Logf("%d progress lines; the last: %v", n, last)
}
