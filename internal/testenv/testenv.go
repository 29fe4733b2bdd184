// Package testenv finds the real inputs tests run on: the shared public traces beside the
// repository and the cached real tokenizers that scripts/fetch-tokenizers.sh downloads. Tests
// fail (never skip) when they are missing, so a green run always means the real thing ran.
// It also holds small helpers the fuzz targets share. It is imported by tests only and must
// not be used by product code.
package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// RepoRoot is the repository's top folder.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// SharedTrace returns the path of a shared public trace: $REPLAY_SHARED/traces/NAME, else
// shared/traces/NAME in the repository's parent folder or any folder above it.
func SharedTrace(t testing.TB, name string) string {
	t.Helper()
	if d := os.Getenv("REPLAY_SHARED"); d != "" {
		p := filepath.Join(d, "traces", name)
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("REPLAY_SHARED=%s but %v", d, err)
		}
		return p
	}
	for dir := RepoRoot(); ; {
		p := filepath.Join(dir, "shared", "traces", name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("shared trace %s not found: put the shared folder (with traces/) beside the repository or set REPLAY_SHARED", name)
		}
		dir = parent
	}
}

// Tokenizer returns the folder of a cached real tokenizer (llama3, llama3_1, qwen3,
// deepseek_v3, gptoss, gpt4o, llama2, gemma3): $REPLAY_TOKENIZER_CACHE/NAME, else
// .cache/tokenizers/NAME in the repository.
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
