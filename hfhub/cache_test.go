package hfhub

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
)

// PythonCache is a cache folder holding repo at commit, laid out as the Python client lays it
// out (internal/testenv's HFCache), from a real tokenizer's files.
func PythonCache(t *testing.T, tokenizerDir, repo, commit string) string {
	cache := filepath.Join(t.TempDir(), "hub")
	testenv.HFCache(t, cache, tokenizerDir, repo, commit)
	return cache
}

// A cache the Python client wrote is used as it is, offline, at the branch or the commit.
func TestPythonLayoutCache(t *testing.T) {
	cache := PythonCache(t, testenv.Tokenizer(t, "llama3"), "meta-llama/Meta-Llama-3-8B", testCommit)
	env := Env{CacheDir: cache, Endpoint: "http://127.0.0.1:1", Offline: true}
	for _, spec := range []string{"meta-llama/Meta-Llama-3-8B", "meta-llama/Meta-Llama-3-8B@" + testCommit} {
		ref, ok := ParseRef(spec)
		if !ok {
			t.Fatalf("%s: not a reference", spec)
		}
		snap, err := Resolve(context.Background(), ref, env)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		want := filepath.Join(cache, "models--meta-llama--Meta-Llama-3-8B", "snapshots", testCommit)
		if snap.Dir != want || len(snap.Downloaded) != 0 {
			t.Errorf("%s: %+v, want %s from the cache", spec, snap, want)
		}
		b, err := os.ReadFile(filepath.Join(snap.Dir, "tokenizer.json"))
		if orig, _ := os.ReadFile(filepath.Join(testenv.Tokenizer(t, "llama3"), "tokenizer.json")); err != nil || string(b) != string(orig) {
			t.Errorf("%s: tokenizer.json through the snapshot's link: %v", spec, err)
		}
	}
	// A link to a blob that is gone is no file: offline, that is the error naming the snapshot.
	blobs := filepath.Join(cache, "models--meta-llama--Meta-Llama-3-8B", "blobs")
	ents, _ := os.ReadDir(blobs)
	for _, e := range ents {
		os.Remove(filepath.Join(blobs, e.Name()))
	}
	ref, _ := ParseRef("meta-llama/Meta-Llama-3-8B")
	if _, err := Resolve(context.Background(), ref, env); err == nil {
		t.Error("a snapshot whose blobs are gone was taken")
	}
}
