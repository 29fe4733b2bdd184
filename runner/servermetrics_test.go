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
	both := scrape.Result{Source: "vLLM", Scrapes: 3, Increase: map[string]float64{results.PrefixCacheQueries: 100, results.PrefixCacheHits: 40}, BadLines: 2, Dropped: 1}
	c := serverCache(both)
	if c.Absent != "" || *c.HitTokens != 40 || c.BadLines != 2 || c.DroppedValues != 1 || !strings.Contains(c.Source, "vLLM") {
		t.Errorf("both counters: %+v", c)
	}
	cases := []struct {
		r    scrape.Result
		want string
	}{
		{scrape.Result{Source: "vLLM", Scrapes: 1}, "needs two"},
		{scrape.Result{Source: "SGLang", Scrapes: 5, Increase: map[string]float64{results.PrefixCacheQueries: 10}}, "no prefix-cache hit counter"},
		{scrape.Result{Source: "TGI", Scrapes: 5, Increase: map[string]float64{}}, "no prefix-cache counters TGI reads"},
	}
	spec := serverCache(scrape.Result{Source: "vLLM", Scrapes: 3, Increase: map[string]float64{scrape.SpecDraftTokens: 200, scrape.SpecAcceptedTokens: 150}})
	if spec.SpecDecode == nil || *spec.SpecDecode.AcceptancePct != 75 {
		t.Errorf("speculative decoding: %+v", spec.SpecDecode)
	}
	for _, tc := range cases {
		if c := serverCache(tc.r); c.HitTokens != nil || !strings.Contains(c.Absent, tc.want) {
			t.Errorf("%+v: absent %q, want %q", tc.r, c.Absent, tc.want)
		}
	}
}
