package runner

import (
	"strings"
	"testing"

	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/scrape"
)

// TestServerCacheSaysWhyAbsent: the summary's server figures name their source and, when
// null, why: too few scrapes, a query counter without hits (an SGLang page before its first
// cached token), or no counters at all.
func TestServerCacheSaysWhyAbsent(t *testing.T) {
	both := scrape.Result{Source: "vLLM", Scrapes: 3, Increase: map[string]float64{results.PrefixCacheQueriedTokens: 100, results.PrefixCacheHitTokens: 40}, BadLines: 2, Dropped: 1}
	c := serverCache(both)
	if c.Absent != "" || *c.HitTokens != 40 || c.BadLines != 2 || c.DroppedValues != 1 || !strings.Contains(c.Source, "vLLM") {
		t.Errorf("both counters: %+v", c)
	}
	cases := []struct {
		r    scrape.Result
		want string
	}{
		{scrape.Result{Source: "vLLM", Scrapes: 1}, "needs two"},
		{scrape.Result{Source: "SGLang", Scrapes: 5, Increase: map[string]float64{results.PrefixCacheQueriedTokens: 10}}, "no prefix-cache hit counter"},
		{scrape.Result{Source: "TGI", Scrapes: 5, Increase: map[string]float64{}}, "no prefix-cache counters TGI reads"},
	}
	spec := serverCache(scrape.Result{Source: "vLLM", Scrapes: 3, Increase: map[string]float64{results.SpecDraftTokens: 200, results.SpecAcceptedTokens: 150}})
	if spec.SpecDecode == nil || *spec.SpecDecode.AcceptancePct != 75 {
		t.Errorf("speculative decoding: %+v", spec.SpecDecode)
	}
	for _, tc := range cases {
		if c := serverCache(tc.r); c.HitTokens != nil || !strings.Contains(c.Absent, tc.want) {
			t.Errorf("%+v: absent %q, want %q", tc.r, c.Absent, tc.want)
		}
	}
}

// TestServerCacheNamesItsSeries: the summary's figures name the engine's own series behind
// them; counters in blocks are reported as blocks, their hit rate a share of blocks; an
// SGLang page without a hit counter points at the hit-rate gauge it kept.
func TestServerCacheNamesItsSeries(t *testing.T) {
	sg := serverCache(scrape.Result{Source: "SGLang", Scrapes: 3,
		Increase: map[string]float64{results.PrefixCacheQueriedTokens: 100, results.PrefixCacheHitTokens: 25},
		From:     map[string]string{results.PrefixCacheQueriedTokens: "sglang:prompt_tokens_total", results.PrefixCacheHitTokens: "sglang:cached_tokens_total"}})
	if want := "SGLang's page: increases of sglang:prompt_tokens_total and sglang:cached_tokens_total, in tokens"; sg.Source != want {
		t.Errorf("source %q, want %q", sg.Source, want)
	}
	bl := serverCache(scrape.Result{Source: "vLLM", Scrapes: 3,
		Increase: map[string]float64{results.PrefixCacheQueriedBlocks: 64, results.PrefixCacheHitBlocks: 16},
		From:     map[string]string{results.PrefixCacheQueriedBlocks: "vllm:gpu_prefix_cache_queries_total", results.PrefixCacheHitBlocks: "vllm:gpu_prefix_cache_hits_total"}})
	if bl.QueriedTokens != nil || bl.QueriedBlocks == nil || *bl.HitBlocks != 16 || !strings.HasSuffix(bl.Source, "in blocks") || bl.Absent != "" {
		t.Errorf("blocks: %+v", bl)
	}
	if p := bl.HitPct(); p == nil || *p != 25 {
		t.Errorf("hit rate from blocks: %v", p)
	}
	gauge := serverCache(scrape.Result{Source: "SGLang", Scrapes: 3, Increase: map[string]float64{results.PrefixCacheQueriedTokens: 10},
		From: map[string]string{results.PrefixCacheHitRate: "sglang:cache_hit_rate"}})
	if !strings.Contains(gauge.Absent, "sglang:cache_hit_rate is kept in server_metrics.jsonl as prefix_cache_hit_rate") {
		t.Errorf("absent %q", gauge.Absent)
	}
}
