package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/cachestudy"
	"github.com/llm-replay/replay/internal/testenv"
)

// TestCacheStudyCLI: cache-study against the built-in simulator writes both arms' run
// folders, cache_study.json and cache_study.html, and prints the verdict on stdout, with the
// simulator's capacity (--sim-kv-blocks, read back from its /metrics) marked and in GiB from
// --kv-bytes-per-token.
func TestCacheStudyCLI(t *testing.T) {
	trace := studyTrace(t)
	out := filepath.Join(t.TempDir(), "study")
	code, stdout, stderr := runCLI(t, "cache-study", "--trace", trace, "--limit", "60", "--speed", "4",
		"--sim-kv-blocks", "8192", "--kv-bytes-per-token", "131072", "--slo", "ttft=200ms", "--max-lateness", "0",
		"--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "prefix caching saved ") || !strings.Contains(stdout, "predicted by LRU at the engine's 131,072 tokens") {
		t.Errorf("stdout:\n%s", stdout)
	}
	for _, f := range []string{"cache_study.json", "cache_study.html", "traced/report.html", "unique/summary.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "cache_study.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st cachestudy.Study
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	if c := st.Capacity; c == nil || c.Blocks != 8192 || c.BlockSize != 16 || c.GiB == nil || *c.GiB != 16 || st.KVBytesPerToken != 131072 {
		t.Errorf("capacity %+v, KV %d bytes a token", st.Capacity, st.KVBytesPerToken)
	}
	if !strings.HasPrefix(stdout, st.Verdict+"\n") || st.TTFT.N != 60 {
		t.Errorf("verdict %q, %d pairs; stdout:\n%s", st.Verdict, st.TTFT.N, stdout)
	}
}

// studyTrace writes 80 Mooncake rows, 100 ms apart, each two blocks shared by one of eight
// groups and one of its own.
func studyTrace(t *testing.T) string {
	t.Helper()
	recs := make([]testenv.MooncakeRecord, 80)
	for i := range recs {
		g := (i * 5) % 8
		recs[i] = testenv.MooncakeRecord{Timestamp: float64(100 * i), InputLength: 1536, OutputLength: 4, HashIDs: []int{2 * g, 2*g + 1, 100 + i}}
	}
	return testenv.WriteMooncake(t, "study.jsonl", recs)
}

// TestCacheStudyFlags: flags the study cannot take fail with a message naming them.
func TestCacheStudyFlags(t *testing.T) {
	trace := cacheSimTrace(t)
	out := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--prefix-mode", "unique"}, "--prefix-mode"},
		{[]string{"--endpoint", "http://127.0.0.1:1/v1", "--model", "m", "--tokenizer", "x", "--sim-kv-blocks", "10"}, "--sim-kv-blocks"},
		{[]string{"--kv-bytes-per-token", "10", "--model-config", "x"}, "--model-config"},
		{[]string{"--capacity-blocks", "-3"}, "--capacity-blocks"},
		{[]string{"--engine-kv-tokens", "-1"}, "--engine-kv-tokens"},
	} {
		code, _, stderr := runCLI(t, append([]string{"cache-study", "--trace", trace, "--out", out}, c.args...)...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q: want a failure naming %s", c.args, code, stderr, c.want)
		}
	}
}
