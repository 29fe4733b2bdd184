package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// --memory bounds the process while the schedule runs: a budget the prepared window leaves no
// room under stops the run before its endpoint is started or anything sent, exit 1, naming the
// flag and the fixes; a budget with room is where garbage collection is held to, and says so.
func TestMemoryBudget(t *testing.T) {
	bin := replayBin(t)
	tmp := t.TempDir()
	small := filepath.Join(tmp, "small")
	cmd := exec.Command(bin, "run", "--limit", "20", "--speed", "8", "--sim-zero-cost", "--memory", "64MiB", "--out", small)
	cmd.Env = append(os.Environ(), "GOGC=", "GOMEMLIMIT=")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("--memory 64MiB: %v, want exit 1\n%s", err, out)
	}
	for _, want := range []string{"--memory:", "memory budget", "raise --memory", "--shard"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("--memory 64MiB: output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(small, "requests.parquet")); err == nil {
		t.Errorf("--memory 64MiB: requests.parquet written; the run should stop before its target starts")
	}

	ok := filepath.Join(tmp, "ok")
	cmd = exec.Command(bin, "run", "--limit", "20", "--speed", "8", "--sim-zero-cost", "--memory", "1GiB", "--out", ok)
	cmd.Env = append(os.Environ(), "GOGC=", "GOMEMLIMIT=")
	if out, err = cmd.CombinedOutput(); err != nil {
		t.Fatalf("--memory 1GiB: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "collects near 1.0 GiB of memory, the memory budget (--memory)") {
		t.Errorf("--memory 1GiB: the collector's hold does not name the budget:\n%s", out)
	}
}
