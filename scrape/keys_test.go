package scrape

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"

	"github.com/llm-replay/replay/results"
)

// TestSamplesKeptUnderNeutralKeys: an SGLang page's series land under package results'
// neutral keys, none under another engine's names, and each key says which of the page's
// series filled it.
func TestSamplesKeptUnderNeutralKeys(t *testing.T) {
	for _, c := range []struct {
		file, engine string
		from         map[string]string
	}{
		{"sglang.prom", "sglang", map[string]string{
			results.PrefixCacheQueriedTokens: "sglang:prompt_tokens_total", results.RequestsRunning: "sglang:num_running_reqs"}},
		{"llamacpp-b11669.metrics", "llamacpp", map[string]string{
			results.PrefixCacheQueriedTokens: "llamacpp:prompt_tokens_total + llamacpp:prompt_tokens_cached_total",
			results.PrefixCacheHitTokens:     "llamacpp:prompt_tokens_cached_total"}},
		{"triton-trtllm.prom", "trtllm", map[string]string{
			results.RequestsRunning: `nv_trt_llm_request_metrics{request_type="active"}`}},
		{"vllm-early-v1.prom", "vllm", map[string]string{
			results.PrefixCacheQueriedBlocks: "vllm:gpu_prefix_cache_queries_total", results.KVCacheUsage: "vllm:gpu_cache_usage_perc"}},
	} {
		page, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		got, st, err := parse(bytes.NewReader(page), expfmt.FmtText, ForEngine(c.engine))
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		for key := range got {
			if strings.HasPrefix(key, "vllm:") && c.engine != "vllm" {
				t.Errorf("%s: key %q is vLLM's name", c.file, key)
			}
			if st.From[key] == "" {
				t.Errorf("%s: key %q has no source", c.file, key)
			}
		}
		for key, want := range c.from {
			if st.From[key] != want {
				t.Errorf("%s: %s from %q, want %q", c.file, key, st.From[key], want)
			}
		}
	}
}

// TestBlockCountersIncrease: counters kept under the blocks keys are counters still; their
// increase over the run is kept like the token counters'.
func TestBlockCountersIncrease(t *testing.T) {
	var queries atomic.Int64
	queries.Store(64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := queries.Load()
		fmt.Fprintf(w, "# HELP vllm:gpu_prefix_cache_queries_total GPU prefix cache queries, in terms of number of queried blocks.\n# TYPE vllm:gpu_prefix_cache_queries_total counter\nvllm:gpu_prefix_cache_queries_total %d\n"+
			"# HELP vllm:gpu_prefix_cache_hits_total GPU prefix cache hits, in terms of number of cached blocks.\n# TYPE vllm:gpu_prefix_cache_hits_total counter\nvllm:gpu_prefix_cache_hits_total %d\n", q, q/4)
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "server_metrics.jsonl")
	s, err := Start(context.Background(), Config{URL: srv.URL, Interval: time.Hour, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	queries.Store(164)
	res := s.Stop()
	if q, h := res.Increase[results.PrefixCacheQueriedBlocks], res.Increase[results.PrefixCacheHitBlocks]; q != 100 || h != 25 {
		t.Fatalf("increase in blocks: queries %v hits %v, want 100 and 25 (%v)", q, h, res.Increase)
	}
	if _, ok := res.Increase[results.PrefixCacheQueriedTokens]; ok {
		t.Errorf("blocks counted as tokens: %v", res.Increase)
	}
	lines := readLines(t, path)
	if len(lines) != 2 || lines[1][results.PrefixCacheQueriedBlocks] != 164.0 {
		t.Fatalf("file: %v", lines)
	}
}
