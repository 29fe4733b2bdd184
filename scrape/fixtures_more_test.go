package scrape

import (
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"

	"github.com/llm-replay/replay/results"
)

// moreFixtureCases are the engine versions added after fixtureCases (testdata/README.md
// lists every fixture with its source): TestFixturesReadEachEngine runs them too.
var moreFixtureCases = []fixtureCase{
	// vLLM at 3168f58: the local counters are read, not the KV connector's external ones
	// beside them, and the figures are those of vllm-v1.prom.
	{"vllm-v1-3168f58.prom", "vllm", map[string]float64{
		results.RequestsRunning: 5, results.RequestsWaiting: 1, results.KVCacheUsage: 0.42,
		results.PrefixCacheQueriedTokens: 2000, results.PrefixCacheHitTokens: 500,
		results.GenerationTokens: 900, results.Preemptions: 2,
		results.SpecDraftTokens: 300, results.SpecAcceptedTokens: 210}, 0},
	// TGI: the batch and the queue, the generated-tokens histogram's sum; no KV usage, no
	// prefix cache (TestTGIServesNoCacheSeries).
	{"tgi-db931fc.prom", "tgi", map[string]float64{
		results.RequestsRunning: 6, results.RequestsWaiting: 4, results.GenerationTokens: 1500}, 0},
	// Dynamo's TensorRT-LLM worker serves trtllm-serve's names with Dynamo's labels.
	{"dynamo-trtllm-worker.prom", "trtllm", map[string]float64{
		results.RequestsRunning: 6, results.RequestsWaiting: 2, results.KVCacheUsage: 0.35,
		results.PrefixCacheHitRate: 0.4, results.PrefixCacheQueriedTokens: 3000, results.PrefixCacheHitTokens: 1200}, 0},
	// Triton's TensorRT-LLM backend as its README prints the page: the active requests; no
	// waiting count or usage fraction in that page, and Triton's own nv_inference_ series
	// beside it are no engine's.
	{"triton-trtllm-readme.prom", "trtllm", map[string]float64{results.RequestsRunning: 5}, 0},
	// Dynamo's frontend: no engine's series. Its inflight and queued gauges count HTTP
	// requests (queued until the first response), not an engine's batch and queue, so they are
	// not read as running and waiting.
	{"dynamo-frontend.prom", "", map[string]float64{}, 0},
}

// TestTGIServesNoCacheSeries: TGI's page (router/src/server.rs at db931fc describes no KV or
// prefix-cache series) fills none of the cache keys, so the summary says the page has no
// prefix-cache counters rather than a hit rate of zero.
func TestTGIServesNoCacheSeries(t *testing.T) {
	got, _, err := parse(strings.NewReader(readFixture(t, "tgi-db931fc.prom")), expfmt.FmtText, TGI)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{results.KVCacheUsage, results.PrefixCacheQueriedTokens, results.PrefixCacheHitTokens, results.PrefixCacheHitRate} {
		if v, ok := got[key]; ok {
			t.Errorf("TGI's page gave %s = %v; TGI serves no such series", key, v)
		}
	}
}
