// Package testenv finds the real inputs tests run on: the shared public traces beside the
// repository and the cached real tokenizers that scripts/fetch-tokenizers.sh downloads.
//
// A missing tokenizer fails its test: scripts/fetch-tokenizers.sh can always get one. The
// public traces are not part of the repository and a checkout may not have them beside it, so
// a test that needs one skips when they are absent, saying where it looked, and each test binary
// says once on stderr that its real-trace tests are being skipped. REPLAY_REQUIRE_TRACES=1 (CI
// sets it) turns those skips into failures, for runs where green must mean the real traces ran.
// See SharedTrace for where the traces are looked for.
//
// It also holds small helpers the fuzz targets share. It is imported by tests only and must
// not be used by product code.
package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// RepoRoot is the repository's top folder.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// SharedTrace returns the path of a shared public trace, traces/NAME in the shared folder:
// $REPLAY_SHARED when set (and then only there), else the first shared/ that has a traces/
// folder in the repository's folder or any folder above it.
//
// The traces count as absent when there is no such traces/ folder; then the test is skipped,
// or fails when REPLAY_REQUIRE_TRACES=1. REPLAY_SHARED naming a folder without traces/ (an
// empty temporary folder, say) is how to run the tests as a checkout without the traces would.
// A traces/ folder that is there but lacks NAME fails the test either way: that folder is
// damaged or out of date, which a skip would hide.
func SharedTrace(tb testing.TB, name string) string {
	tb.Helper()
	p := filepath.Join(sharedTraces(tb), name)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("public trace %s missing from the shared traces folder: %v", name, err)
	}
	return p
}

// sharedTraces returns the shared traces folder, or skips (under REPLAY_REQUIRE_TRACES=1,
// fails) the test when there is none.
func sharedTraces(tb testing.TB) string {
	tb.Helper()
	dir, looked := findSharedTraces()
	if dir != "" {
		return dir
	}
	where := strings.Join(looked, ", ")
	if os.Getenv("REPLAY_REQUIRE_TRACES") == "1" {
		tb.Fatalf("public traces not found (looked in %s) and REPLAY_REQUIRE_TRACES=1: set REPLAY_SHARED or put shared/ beside the repository", where)
	}
	// go test -v shows every skip, but a run without -v only says "ok": one line per test
	// binary on stderr keeps a quietly shrunken run from passing for a full one.
	skipNotice.Do(func() {
		pkg := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe"), ".test")
		fmt.Fprintf(os.Stderr, "testenv: public traces not found (looked in %s): the real-trace tests of %s are skipped (REPLAY_REQUIRE_TRACES=1 fails them)\n", where, pkg)
	})
	tb.Skipf("public traces not found (looked in %s): skipped; set REPLAY_SHARED or put shared/ beside the repository", where)
	return ""
}

var skipNotice sync.Once

// findSharedTraces returns the shared traces folder ("" when there is none) and the folders
// it looked in.
func findSharedTraces() (dir string, looked []string) {
	if d := os.Getenv("REPLAY_SHARED"); d != "" {
		p := filepath.Join(d, "traces")
		if isDir(p) {
			return p, nil
		}
		return "", []string{p + " (from REPLAY_SHARED)"}
	}
	for d := RepoRoot(); ; {
		p := filepath.Join(d, "shared", "traces")
		if isDir(p) {
			return p, nil
		}
		looked = append(looked, p)
		parent := filepath.Dir(d)
		if parent == d {
			return "", looked
		}
		d = parent
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// Tokenizer returns the folder of a cached real tokenizer (llama3, llama3_1, qwen3,
// deepseek_v3, gptoss, gpt4o, llama2, gemma3, and llama3_1_tools: Llama-3.1's tokenizer with
// Llama-3.1-8B-Instruct's own chat template, which renders tools; see
// scripts/fetch-tokenizers.sh): $REPLAY_TOKENIZER_CACHE/NAME, else .cache/tokenizers/NAME in
// the repository.
func Tokenizer(t testing.TB, name string) string {
	t.Helper()
	cache := os.Getenv("REPLAY_TOKENIZER_CACHE")
	if cache == "" {
		cache = filepath.Join(RepoRoot(), ".cache", "tokenizers")
	}
	dir := filepath.Join(cache, name)
	if _, err := os.Stat(filepath.Join(dir, "tokenizer.json")); err != nil {
		t.Fatalf("tokenizer %s not found in %s: run scripts/fetch-tokenizers.sh", name, cache)
	}
	return dir
}

// SampleTokenizer is the committed Mistral-7B tokenizer folder.
func SampleTokenizer() string {
	return filepath.Join(RepoRoot(), "samples", "tokenizer", "mistral")
}

// PanicAfter panics, ending the process, if stop has not been called within d. Fuzz targets
// call it around one input: the fuzzer keeps only inputs that crash its worker, so an input that
// stalls it (a multi-gigabyte allocation did, for minutes) would otherwise go unreported.
func PanicAfter(d time.Duration, what string) (stop func() bool) {
	return time.AfterFunc(d, func() { panic(fmt.Sprintf("%s: still running after %v", what, d)) }).Stop
}
