package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// writeMinutes writes n Mooncake files, a minute each, under dir/logs, with a README and a
// _SUCCESS marker beside them, and returns the folder.
func writeMinutes(t *testing.T, dir string, n int) string {
	t.Helper()
	logs := filepath.Join(dir, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	for m := range n {
		var b strings.Builder
		for i := range 2 {
			fmt.Fprintf(&b, `{"timestamp": %d, "input_length": 40, "output_length": 4, "hash_ids": []}`+"\n", m*60_000+i*20_000)
		}
		if err := os.WriteFile(filepath.Join(logs, fmt.Sprintf("m%02d.jsonl", m)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(logs, "README.md"), []byte("# notes\n"), 0o644)
	os.WriteFile(filepath.Join(logs, "_SUCCESS"), nil, 0o644)
	return logs
}

// TestIngestFolder: a folder is one log; each file's counts and the files left out go to
// stderr; the last stdout line stays the contract's count.
func TestIngestFolder(t *testing.T) {
	logs := writeMinutes(t, t.TempDir(), 3)
	code, stdout, stderr := runCLI(t, "ingest", "--trace", logs, "--out", filepath.Join(t.TempDir(), "t.parquet"))
	if code != 0 || stdout != `{"records":6,"rejected":0}`+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	for _, want := range []string{"m00.jsonl: 2 records", "m02.jsonl: 2 records", "README.md: left out: not a log", "_SUCCESS: left out"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// TestIngestShellExpandedGlob: `--trace logs/*.jsonl` expanded by a shell leaves the other
// files as arguments, which are more --trace values; arguments without --trace stay an error.
func TestIngestShellExpandedGlob(t *testing.T) {
	logs := writeMinutes(t, t.TempDir(), 3)
	files, _ := filepath.Glob(filepath.Join(logs, "*.jsonl"))
	args := append([]string{"ingest", "--trace"}, files...)
	code, stdout, stderr := runCLI(t, append(args, "--out", filepath.Join(t.TempDir(), "t.parquet"))...)
	if code != 0 || stdout != `{"records":6,"rejected":0}`+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, _, stderr = runCLI(t, "ingest", files[0], "--out", filepath.Join(t.TempDir(), "t.parquet"))
	if code == 0 || !strings.Contains(stderr, "unexpected arguments") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// TestIngestFolderBadFile: a file of the folder that does not parse stops the read under
// --on-error fail, naming the file and line, and exits non-zero.
func TestIngestFolderBadFile(t *testing.T) {
	logs := writeMinutes(t, t.TempDir(), 2)
	os.WriteFile(filepath.Join(logs, "m05.jsonl"), []byte(`{"timestamp": 1, "input_length": 40, "output_length": 4, "hash_ids": []}`+"\n{not json\n"), 0o644)
	code, stdout, stderr := runCLI(t, "ingest", "--trace", logs, "--out", filepath.Join(t.TempDir(), "t.parquet"))
	if code == 0 || stdout != "" || !strings.Contains(stderr, "m05.jsonl:2") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestRunYAMLRecordsFiles: run.yaml holds the files a folder resolved to, so --config repeats
// the run on them even after the folder gains a file; --dry-run says what each file gave.
func TestRunYAMLRecordsFiles(t *testing.T) {
	logs := writeMinutes(t, t.TempDir(), 2)
	out := t.TempDir()
	code, _, stderr := runCLI(t, "run", "--trace", logs, "--speed", "100", "--max-lateness", "0", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "run.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(cfg["trace"])
	want := fmt.Sprint([]any{filepath.Join(logs, "m00.jsonl"), filepath.Join(logs, "m01.jsonl")})
	if got != want {
		t.Fatalf("run.yaml trace: %s, want %s", got, want)
	}
	writeMinutes(t, filepath.Dir(logs), 3) // the folder gains m02.jsonl
	code, _, stderr = runCLI(t, "run", "--config", filepath.Join(out, "run.yaml"), "--dry-run", "--out", t.TempDir())
	if code != 0 || !strings.Contains(stderr, "m01.jsonl: 2 records") || strings.Contains(stderr, "m02.jsonl") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
}

// TestRunShellExpandedGlob: replay run takes the arguments a shell's glob expansion leaves as
// more --trace values too; --dry-run says what each file gave.
func TestRunShellExpandedGlob(t *testing.T) {
	logs := writeMinutes(t, t.TempDir(), 3)
	files, _ := filepath.Glob(filepath.Join(logs, "*.jsonl"))
	args := append([]string{"run", "--dry-run", "--trace"}, files...)
	code, stdout, stderr := runCLI(t, args...)
	if code != 0 || !strings.Contains(stderr, "m00.jsonl: 2 records") || !strings.Contains(stderr, "m02.jsonl: 2 records") || !strings.Contains(stdout, "6 requests") {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
