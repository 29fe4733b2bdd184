package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/gen"
)

// cacheSimTrace writes a generated trace (512-token blocks) for cache-sim to read.
func cacheSimTrace(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "gen.jsonl")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := gen.WriteJSONL(f, gen.Config{Shape: "mixed", Duration: 10 * time.Minute, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	return p
}

// cacheSimOK runs cache-sim and returns its stdout, failing on a non-zero exit.
func cacheSimOK(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := runCLI(t, append([]string{"cache-sim"}, args...)...)
	if code != 0 {
		t.Fatalf("cache-sim %q: exit %d, %s", args, code, stderr)
	}
	return stdout
}

// TestCacheSimCapacities: several capacities print a line each, smallest first, then the
// infinite one, each with the rate a single-capacity run prints (`hit rate X%`, unchanged).
func TestCacheSimCapacities(t *testing.T) {
	p := cacheSimTrace(t)
	single := func(n string) string {
		return strings.TrimPrefix(cacheSimOK(t, "--trace", p, "--capacity-blocks", n), "hit rate ")
	}
	got := cacheSimOK(t, "--trace", p, "--capacity-blocks", "1000,30,300")
	want := fmt.Sprintf("capacity 30 blocks: hit rate %scapacity 300 blocks: hit rate %scapacity 1000 blocks: hit rate %scapacity infinite: hit rate %s",
		single("30"), single("300"), single("1000"), single("0"))
	if got != want || single("30") == single("0") {
		t.Errorf("got\n%swant\n%s", got, want)
	}
	// A range gives 12 log-spaced sizes with its ends; the KV size adds GiB (64 MiB a block).
	got = cacheSimOK(t, "--trace", p, "--capacity-blocks", "16-1600", "--kv-bytes-per-token", "131072")
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 13 || !strings.HasPrefix(lines[0], "capacity 16 blocks (1.00 GiB): hit rate ") ||
		!strings.HasPrefix(lines[1], "capacity 24 blocks (1.50 GiB): hit rate ") ||
		!strings.HasPrefix(lines[11], "capacity 1600 blocks (100.00 GiB): hit rate ") || !strings.HasPrefix(lines[12], "capacity infinite: hit rate ") {
		t.Errorf("range:\n%s", got)
	}
}

// TestCacheSimGiB: sizes in GiB become whole blocks by the model's config.json (a file or
// its folder): Llama-3-8B's 128 KiB per token makes a 512-token block 64 MiB.
func TestCacheSimGiB(t *testing.T) {
	p := cacheSimTrace(t)
	dir := t.TempDir()
	cfg := `{"num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "hidden_size": 4096, "torch_dtype": "bfloat16"}`
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	byBlocks := cacheSimOK(t, "--trace", p, "--capacity-blocks", "16,40", "--kv-bytes-per-token", "131072")
	for _, model := range []string{dir, filepath.Join(dir, "config.json")} {
		byGiB := cacheSimOK(t, "--trace", p, "--capacity-gib", "1,2.5", "--model-config", model)
		if byGiB != byBlocks || !strings.HasPrefix(byGiB, "capacity 16 blocks (1.00 GiB): hit rate ") {
			t.Errorf("--model-config %s:\n%s, want\n%s", model, byGiB, byBlocks)
		}
	}
	_, _, stderr := runCLI(t, "cache-sim", "--trace", p, "--capacity-gib", "1", "--model-config", dir)
	if !strings.Contains(stderr, "= 131072 bytes per token") {
		t.Errorf("stderr %q: want the model's KV arithmetic", stderr)
	}
}

// TestCacheSimFlagErrors: bad sizes and KV flags fail, saying which flag and why.
func TestCacheSimFlagErrors(t *testing.T) {
	p := cacheSimTrace(t)
	bad := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(bad, []byte(`{"num_hidden_layers": 32}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--capacity-blocks", "ten"}, `--capacity-blocks "ten": want N, A,B,C or LO-HI`},
		{[]string{"--capacity-blocks", "-5"}, `--capacity-blocks "-5"`},
		{[]string{"--capacity-blocks", "100-10"}, "a range's LO at most its HI"},
		{[]string{"--capacity-blocks", "0-10"}, "not in a range"},
		{[]string{"--capacity-gib", "1"}, "--capacity-gib needs the KV bytes per token"},
		{[]string{"--capacity-gib", "0", "--kv-bytes-per-token", "100"}, "sizes must be positive"},
		{[]string{"--capacity-gib", "x", "--kv-bytes-per-token", "100"}, `--capacity-gib "x"`},
		{[]string{"--capacity-gib", "1e-9", "--kv-bytes-per-token", "100"}, "holds no whole block"},
		{[]string{"--kv-bytes-per-token", "-1"}, "--kv-bytes-per-token must be positive"},
		{[]string{"--kv-bytes-per-token", "1", "--model-config", bad}, "pass one"},
		{[]string{"--capacity-gib", "1", "--model-config", bad + ".missing"}, "--model-config: open"},
		{[]string{"--capacity-gib", "1", "--model-config", bad}, bad + ": num_attention_heads: missing"},
	} {
		code, _, stderr := runCLI(t, append([]string{"cache-sim", "--trace", p}, c.args...)...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want %q", c.args, code, stderr, c.want)
		}
	}
}
