package scrape

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"

	"github.com/llm-replay/replay/results"
)

// Pages in the shapes each engine serves, with the reference each name comes from.

// vllmV1Page: vLLM v1 (vllm/v1/metrics/loggers.py; vLLM docs "Production Metrics") as 0.11
// serves it under --show-hidden-metrics-for-version=0.10: the current prefix-cache counters
// beside the deprecated gpu_ ones, which must not be counted twice.
const vllmV1Page = `# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} 4.0
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="m"} 2.0
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.5
# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total{engine="0",model_name="m"} 1000.0
# TYPE vllm:prefix_cache_hits_total counter
vllm:prefix_cache_hits_total{engine="0",model_name="m"} 600.0
# TYPE vllm:gpu_prefix_cache_queries_total counter
vllm:gpu_prefix_cache_queries_total{engine="0",model_name="m"} 1000.0
# TYPE vllm:gpu_prefix_cache_hits_total counter
vllm:gpu_prefix_cache_hits_total{engine="0",model_name="m"} 600.0
# TYPE vllm:num_preemptions_total counter
vllm:num_preemptions_total{engine="0",model_name="m"} 3.0
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{engine="0",model_name="m"} 5000.0
`

// vllmEarlyV1Page: vLLM v1 before 0.10 named its prefix-cache counters gpu_prefix_cache_*
// and its usage gauge gpu_cache_usage_perc (vllm/v1/metrics/loggers.py of v0.9).
const vllmEarlyV1Page = `# TYPE vllm:gpu_cache_usage_perc gauge
vllm:gpu_cache_usage_perc{engine="0",model_name="m"} 0.25
# TYPE vllm:gpu_prefix_cache_queries_total counter
vllm:gpu_prefix_cache_queries_total{engine="0",model_name="m"} 800.0
# TYPE vllm:gpu_prefix_cache_hits_total counter
vllm:gpu_prefix_cache_hits_total{engine="0",model_name="m"} 200.0
`

// vllmV0Page: the v0 engine (vllm/engine/metrics.py): a block hit-rate gauge instead of
// counters, the average throughput gauge, the swapped-requests gauge (not kept).
const vllmV0Page = `# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="m"} 3.0
# TYPE vllm:num_requests_swapped gauge
vllm:num_requests_swapped{model_name="m"} 0.0
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{model_name="m"} 1.0
# TYPE vllm:gpu_cache_usage_perc gauge
vllm:gpu_cache_usage_perc{model_name="m"} 0.4
# TYPE vllm:gpu_prefix_cache_hit_rate gauge
vllm:gpu_prefix_cache_hit_rate{model_name="m"} 0.3
# TYPE vllm:avg_generation_throughput_toks_per_s gauge
vllm:avg_generation_throughput_toks_per_s{model_name="m"} 120.5
# TYPE vllm:num_preemptions_total counter
vllm:num_preemptions_total{model_name="m"} 2.0
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{model_name="m"} 500.0
`

// sglangPage: SGLang with --enable-metrics (docs/references/production_metrics.md for the
// shape; python/sglang/srt/metrics/collector.py for cached_tokens_total, with its
// cache_source label, and num_retracted_requests_total).
const sglangPage = `# HELP sglang:prompt_tokens_total Number of prefill tokens processed.
# TYPE sglang:prompt_tokens_total counter
sglang:prompt_tokens_total{model_name="meta-llama/Llama-3.1-8B-Instruct"} 8.128902e+06
# HELP sglang:generation_tokens_total Number of generation tokens processed.
# TYPE sglang:generation_tokens_total counter
sglang:generation_tokens_total{model_name="meta-llama/Llama-3.1-8B-Instruct"} 7.557572e+06
# HELP sglang:cached_tokens_total Number of cached prompt tokens by source (device/host/storage).
# TYPE sglang:cached_tokens_total counter
sglang:cached_tokens_total{cache_source="device",model_name="meta-llama/Llama-3.1-8B-Instruct"} 3e+06
sglang:cached_tokens_total{cache_source="host",model_name="meta-llama/Llama-3.1-8B-Instruct"} 1e+06
# HELP sglang:token_usage The token usage
# TYPE sglang:token_usage gauge
sglang:token_usage{model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.28
# HELP sglang:cache_hit_rate The cache hit rate
# TYPE sglang:cache_hit_rate gauge
sglang:cache_hit_rate{model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.0075
# HELP sglang:time_to_first_token_seconds Histogram of time to first token in seconds.
# TYPE sglang:time_to_first_token_seconds histogram
sglang:time_to_first_token_seconds_bucket{le="+Inf",model_name="meta-llama/Llama-3.1-8B-Instruct"} 11008.0
sglang:time_to_first_token_seconds_sum{model_name="meta-llama/Llama-3.1-8B-Instruct"} 2.3518979474117756e+06
sglang:time_to_first_token_seconds_count{model_name="meta-llama/Llama-3.1-8B-Instruct"} 11008.0
# HELP sglang:num_running_reqs The number of running requests
# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{model_name="meta-llama/Llama-3.1-8B-Instruct"} 162.0
# HELP sglang:gen_throughput The generate throughput (token/s)
# TYPE sglang:gen_throughput gauge
sglang:gen_throughput{model_name="meta-llama/Llama-3.1-8B-Instruct"} 86.5
# HELP sglang:num_queue_reqs The number of requests in the waiting queue
# TYPE sglang:num_queue_reqs gauge
sglang:num_queue_reqs{model_name="meta-llama/Llama-3.1-8B-Instruct"} 2826.0
# HELP sglang:num_retracted_requests_total Total number of retracted requests due to insufficient kvcache.
# TYPE sglang:num_retracted_requests_total counter
sglang:num_retracted_requests_total{model_name="meta-llama/Llama-3.1-8B-Instruct"} 4.0
`

// tgiPage: TGI's router through metrics-exporter-prometheus (router/src/server.rs for
// tgi_request_generated_tokens with its buckets, backends/v3/src/queue.rs for tgi_queue_size,
// backends/v3/src/backend.rs for tgi_batch_current_size): counters without _total, the
// generated-tokens histogram whose sum is the tokens generated.
const tgiPage = `# TYPE tgi_request_count counter
tgi_request_count 10
# TYPE tgi_queue_size gauge
tgi_queue_size 3
# TYPE tgi_batch_current_size gauge
tgi_batch_current_size 8
# TYPE tgi_batch_current_max_tokens gauge
tgi_batch_current_max_tokens 4096
# TYPE tgi_request_generated_tokens histogram
tgi_request_generated_tokens_bucket{le="128"} 4
tgi_request_generated_tokens_bucket{le="+Inf"} 10
tgi_request_generated_tokens_sum 1280
tgi_request_generated_tokens_count 10
`

// trtllmPage: trtllm-serve's /prometheus/metrics (tensorrt_llm/metrics/collector.py; mounted
// in tensorrt_llm/serve/openai_server.py).
const trtllmPage = `# TYPE trtllm_num_requests_running gauge
trtllm_num_requests_running{engine_type="trtllm",model_name="m"} 4.0
# TYPE trtllm_num_requests_waiting gauge
trtllm_num_requests_waiting{engine_type="trtllm",model_name="m"} 2.0
# TYPE trtllm_kv_cache_utilization gauge
trtllm_kv_cache_utilization{engine_type="trtllm",model_name="m"} 0.5
# TYPE trtllm_kv_cache_hit_rate gauge
trtllm_kv_cache_hit_rate{engine_type="trtllm",model_name="m"} 0.25
# TYPE trtllm_prompt_tokens_total counter
trtllm_prompt_tokens_total{engine_type="trtllm",model_name="m"} 1000.0
# TYPE trtllm_prompt_cached_tokens_total counter
trtllm_prompt_cached_tokens_total{engine_type="trtllm",model_name="m"} 250.0
# TYPE trtllm_generation_tokens_total counter
trtllm_generation_tokens_total{engine_type="trtllm",model_name="m"} 400.0
# TYPE trtllm_num_paused_requests gauge
trtllm_num_paused_requests{engine_type="trtllm",model_name="m"} 1.0
`

// llamacppPage: llama.cpp's server with --metrics (tools/server/README.md, GET /metrics):
// unlabelled series; kv_cache_usage_ratio as builds before the KV-cache rework served it (the
// prompt-token counters are in TestLlamaCppB11669Page, read off a real page).
const llamacppPage = `# HELP llamacpp:tokens_predicted_total Number of generation tokens processed.
# TYPE llamacpp:tokens_predicted_total counter
llamacpp:tokens_predicted_total 7801
# HELP llamacpp:predicted_tokens_seconds Average generation throughput in tokens/s.
# TYPE llamacpp:predicted_tokens_seconds gauge
llamacpp:predicted_tokens_seconds 33.09
# HELP llamacpp:kv_cache_usage_ratio KV-cache usage. 1 means 100 percent usage.
# TYPE llamacpp:kv_cache_usage_ratio gauge
llamacpp:kv_cache_usage_ratio 0.125
# HELP llamacpp:requests_processing Number of requests processing.
# TYPE llamacpp:requests_processing gauge
llamacpp:requests_processing 2
# HELP llamacpp:requests_deferred Number of requests deferred.
# TYPE llamacpp:requests_deferred gauge
llamacpp:requests_deferred 5
`

func TestParseEachEngine(t *testing.T) {
	for _, c := range []struct {
		name  string
		names Names
		page  string
		want  map[string]float64
	}{
		{"vllm v1", VLLM, vllmV1Page, map[string]float64{
			results.RequestsRunning: 4, results.RequestsWaiting: 2, results.KVCacheUsage: 0.5,
			results.PrefixCacheQueriedTokens: 1000, results.PrefixCacheHitTokens: 600, // once, not twice
			results.Preemptions: 3, results.GenerationTokens: 5000}},
		{"vllm early v1", VLLM, vllmEarlyV1Page, map[string]float64{
			results.KVCacheUsage: 0.25, results.PrefixCacheQueriedTokens: 800, results.PrefixCacheHitTokens: 200}},
		{"vllm v0", VLLM, vllmV0Page, map[string]float64{
			results.RequestsRunning: 3, results.RequestsWaiting: 1, results.KVCacheUsage: 0.4,
			results.PrefixCacheHitRate: 0.3, results.GenerationThroughput: 120.5, results.Preemptions: 2, results.GenerationTokens: 500}},
		{"sglang", SGLang, sglangPage, map[string]float64{
			results.PrefixCacheQueriedTokens: 8.128902e+06, results.PrefixCacheHitTokens: 4e+06, // device + host
			results.RequestsRunning: 162, results.RequestsWaiting: 2826, results.KVCacheUsage: 0.28,
			results.PrefixCacheHitRate: 0.0075, results.GenerationThroughput: 86.5, results.GenerationTokens: 7.557572e+06, results.Preemptions: 4}},
		{"tgi", TGI, tgiPage, map[string]float64{
			results.RequestsRunning: 8, results.RequestsWaiting: 3, results.GenerationTokens: 1280}},
		{"trtllm", TRTLLM, trtllmPage, map[string]float64{
			results.RequestsRunning: 4, results.RequestsWaiting: 2, results.KVCacheUsage: 0.5, results.PrefixCacheHitRate: 0.25,
			results.PrefixCacheQueriedTokens: 1000, results.PrefixCacheHitTokens: 250, results.GenerationTokens: 400}},
		{"llamacpp", LlamaCpp, llamacppPage, map[string]float64{
			results.RequestsRunning: 2, results.RequestsWaiting: 5, results.KVCacheUsage: 0.125,
			results.GenerationTokens: 7801, results.GenerationThroughput: 33.09}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, _, err := parse(strings.NewReader(c.page), expfmt.FmtText, c.names)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Fatalf("parsed\n%v\nwant\n%v", got, c.want)
			}
			// Any, the table for an endpoint of unknown make, reads every engine's page alike.
			if viaAny, _, _ := parse(strings.NewReader(c.page), expfmt.FmtText, Any); fmt.Sprint(viaAny) != fmt.Sprint(c.want) {
				t.Fatalf("Any parsed\n%v\nwant\n%v", viaAny, c.want)
			}
		})
	}
}

func TestForEngine(t *testing.T) {
	for name, want := range map[string]string{"vllm": "vLLM", "sglang": "SGLang", "tgi": "TGI", "trtllm": "TensorRT-LLM",
		"llamacpp": "llama.cpp", "generic": "any engine", "": "any engine"} {
		if got := ForEngine(name).Source; got != want {
			t.Errorf("ForEngine(%q) is %s's table, want %s's", name, got, want)
		}
	}
}

// pageServer serves a page the test changes between scrapes.
type pageServer struct {
	mu   sync.Mutex
	page string
}

func (p *pageServer) set(page string) {
	p.mu.Lock()
	p.page = page
	p.mu.Unlock()
}

func (p *pageServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	fmt.Fprint(w, p.page)
}

// TestScraperWithSGLangNames: the scraper reads SGLang's counters under vLLM's keys, so the
// runner's server-side hit rate works unchanged for SGLang.
func TestScraperWithSGLangNames(t *testing.T) {
	ps := &pageServer{}
	ps.set(sglangPage)
	srv := httptest.NewServer(ps)
	defer srv.Close()
	s, err := Start(context.Background(), Config{URL: srv.URL + "/metrics", Interval: time.Hour, Names: SGLang})
	if err != nil {
		t.Fatal(err)
	}
	ps.set(strings.ReplaceAll(sglangPage, "} 3e+06", "} 3.5e+06")) // 500,000 more device-cached tokens
	res := s.Stop()
	if res.Source != "SGLang" || res.Scrapes != 2 {
		t.Fatalf("%+v", res)
	}
	if h := res.Increase[results.PrefixCacheHitTokens]; h != 500000 {
		t.Fatalf("hit increase %v, want 500000 (%v)", h, res.Increase)
	}
	if _, ok := res.Increase[results.RequestsRunning]; ok {
		t.Fatalf("a gauge's increase was kept: %v", res.Increase)
	}
}

// TestDefaultNamesAreVLLM: a Config without Names reads vLLM's, as before tables existed.
func TestDefaultNamesAreVLLM(t *testing.T) {
	ps := &pageServer{}
	ps.set(vllmV1Page)
	srv := httptest.NewServer(ps)
	defer srv.Close()
	s, err := Start(context.Background(), Config{URL: srv.URL, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	res := s.Stop()
	if res.Source != "vLLM" || res.Samples[0].Values[results.PrefixCacheHitTokens] != 600 {
		t.Fatalf("%+v", res)
	}
}
