package scrape

import (
	"strings"

	"github.com/llm-replay/replay/results"
)

// Kind says how a series is read off a page's label sets and over the run.
type Kind int

const (
	// Gauge values are summed over the page's label sets: requests running on two engines
	// behind one endpoint add up.
	Gauge Kind = iota
	// Mean gauges are averaged over label sets instead: the KV-cache usage of two engines is
	// not the sum of their fractions.
	Mean
	// Counter values are summed over label sets, and their increase from the first to the last
	// scrape is kept in Result.Increase (a drop counts as a restart).
	Counter
	// Parts is a counter an engine serves in parts: the values of every name present are added
	// instead of the first winning (llama.cpp's prompt tokens processed and those reused from
	// its cache add up to the prompt tokens queried).
	Parts
)

// Series is one series a run keeps: the key it is written under (in the server-metrics file
// and Result.Increase) and the names an engine may serve it as, newest first. The first name
// present on a page wins, so a server that serves an old name beside its new one (vLLM's
// deprecated series under --show-hidden-metrics-for-version) is not counted twice. A
// histogram or summary named here is read as its sum (TGI's generated-tokens histogram sums
// the tokens). A name may carry one label selector, name{label="value"}: only that label
// value's series is read (Triton's backend tells its series apart by label, not by name).
type Series struct {
	Key  string
	From []string
	Kind Kind
}

// Names is one engine's (or exporter's) metric names for the series a run keeps. Every
// engine's series are written under package results' neutral keys, so the report and the
// summary read every engine alike; the tables below say, per engine, which of its names
// fills each key.
type Names struct {
	// Source names the engine or exporter in messages ("vLLM", "SGLang", "the DCGM exporter").
	Source string
	Series []Series
	// PerLabel, when set, keeps every value of this label apart instead of summing over label
	// sets: the DCGM exporter's gpu label, one series per GPU, keyed Key{gpu="0"}. Series of
	// the same label value (a GPU's MIG instances repeating a device field) keep the largest.
	PerLabel string
	// Blank, when set, reports a value the exporter serves for "no value" (DCGM's blanks),
	// dropped like a negative one (sentinel).
	Blank func(s Series, v float64) bool
}

// Keys are the series' keys, in table order.
func (n Names) Keys() []string {
	keys := make([]string, len(n.Series))
	for i, s := range n.Series {
		keys[i] = s.Key
	}
	return keys
}

// preferred are the names a page is first looked up by, one a series, for messages.
func (n Names) preferred() []string {
	names := make([]string, 0, len(n.Series))
	for _, s := range n.Series {
		if len(s.From) > 0 {
			names = append(names, s.From[0])
		}
	}
	return names
}

// isCounter reports whether key (as parse writes it, with a label suffix under PerLabel) is
// a counter of the table.
func (n Names) isCounter(key string) bool {
	base, _, _ := strings.Cut(key, "{")
	for _, s := range n.Series {
		if s.Key == base || inBlocks[s.Key] == base {
			return s.Kind == Counter || s.Kind == Parts
		}
	}
	return false
}

// Keys of series only one engine serves, under that engine's own name (package results names
// the others neutrally).
const (
	// RetractedNow is SGLang's retracted-requests gauge (requests retracted in the last
	// logging interval), under its own name: it is no count over the run.
	RetractedNow = "sglang:num_retracted_reqs"
	// SpecAcceptLength is SGLang's mean acceptance length gauge (collector.py at
	// sgl-project/sglang 93d04878cfb9b08645fae7b11bd340ee33b34acf), under its own name.
	SpecAcceptLength = "sglang:spec_accept_length"
	// DecodeCalls counts llama.cpp's llama_decode() calls, kept under its own name.
	DecodeCalls = "llamacpp:n_decode_total"
)

// VLLM is vLLM's table, the default: the v1 names (vllm/v1/metrics/loggers.py; "Production
// Metrics" in vLLM's docs) first, then the older ones: vllm:gpu_prefix_cache_queries/hits and
// vllm:gpu_cache_usage_perc of v1 before 0.10 (loggers.py at vllm-project/vllm
// a6f0308cfe806b7731ad4979c9bea6e470c35efd), and the v0 engine's vllm:gpu_cache_usage_perc, hit-rate and throughput
// gauges (vllm/engine/metrics.py; at vllm-project/vllm f0afa0c28a3160de7a2ece6eeda2afc8abba8b39
// it defines running, waiting, gpu_cache_usage_perc, preemptions, generation tokens, the
// throughput gauge and the spec_decode counters, not yet the hit-rate gauge of later v0
// releases, which reads -1 with prefix caching off: parse drops values below zero).
// Early v1 counted its gpu_prefix_cache queries and hits in blocks (its help text says
// "queried blocks"), later ones in tokens, under one name: a family whose help text says
// blocks is kept under the blocks keys (unit.go). The pair is always read from one
// generation (see pairedKeys). Then Ray Serve's names for the same series (rayNames).
var VLLM = withRay(Names{Source: "vLLM", Series: []Series{
	{results.PrefixCacheQueriedTokens, []string{"vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total"}, Counter},
	{results.PrefixCacheHitTokens, []string{"vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total"}, Counter},
	{results.RequestsRunning, []string{"vllm:num_requests_running"}, Gauge},
	{results.RequestsWaiting, []string{"vllm:num_requests_waiting"}, Gauge},
	{results.KVCacheUsage, []string{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"}, Mean},
	{results.GenerationTokens, []string{"vllm:generation_tokens_total"}, Counter},
	{results.Preemptions, []string{"vllm:num_preemptions_total"}, Counter},
	{results.PrefixCacheHitRate, []string{"vllm:gpu_prefix_cache_hit_rate"}, Mean},
	{results.GenerationThroughput, []string{"vllm:avg_generation_throughput_toks_per_s"}, Gauge},
	{results.PromptThroughput, []string{"vllm:avg_prompt_throughput_toks_per_s"}, Gauge},
	{results.SpecDraftTokens, []string{"vllm:spec_decode_num_draft_tokens_total"}, Counter},
	{results.SpecAcceptedTokens, []string{"vllm:spec_decode_num_accepted_tokens_total"}, Counter},
}})

// SGLang's names (python/sglang/srt/metrics/collector.py; docs/references/production_metrics.md;
// served with --enable-metrics; sgl-project/sglang 93d04878cfb9b08645fae7b11bd340ee33b34acf
// serves the gauge sglang:num_retracted_reqs, set per logging interval, and no
// retracted-requests counter: the gauge is kept under its own name, never summed as a count).
// Pages without sglang:cached_tokens_total have no hit counter; the summary then falls back
// to the sglang:cache_hit_rate gauge. Its prefix cache is read as vLLM's is, in prompt tokens:
// queried = prompt tokens, hit = cached prompt tokens (summed over cache_source where the
// counter has that label). Retracted requests are its preemptions.
var SGLang = Names{Source: "SGLang", Series: []Series{
	{results.PrefixCacheQueriedTokens, []string{"sglang:prompt_tokens_total"}, Counter},
	{results.PrefixCacheHitTokens, []string{"sglang:cached_tokens_total"}, Counter},
	{results.RequestsRunning, []string{"sglang:num_running_reqs"}, Gauge},
	{results.RequestsWaiting, []string{"sglang:num_queue_reqs"}, Gauge},
	{results.KVCacheUsage, []string{"sglang:token_usage"}, Mean},
	{results.GenerationTokens, []string{"sglang:generation_tokens_total"}, Counter},
	{results.Preemptions, []string{"sglang:num_retracted_requests_total"}, Counter},
	{RetractedNow, []string{RetractedNow}, Gauge},
	{results.PrefixCacheHitRate, []string{"sglang:cache_hit_rate"}, Mean},
	{results.GenerationThroughput, []string{"sglang:gen_throughput"}, Gauge},
	{SpecAcceptLength, []string{SpecAcceptLength}, Mean},
}}

// TGI's names (router/src/server.rs, backends/v3/src/queue.rs and backend.rs): the batch
// being decoded, the queue, and the generated-tokens histogram, whose sum counts the tokens.
// TGI serves no KV-cache usage, prefix-cache or preemption series.
var TGI = Names{Source: "TGI", Series: []Series{
	{results.RequestsRunning, []string{"tgi_batch_current_size"}, Gauge},
	{results.RequestsWaiting, []string{"tgi_queue_size"}, Gauge},
	{results.GenerationTokens, []string{"tgi_request_generated_tokens"}, Counter},
}}

// TRTLLM is TensorRT-LLM in its three servings, each engine's names in turn:
//   - trtllm-serve's Prometheus page, at /prometheus/metrics (its /metrics is JSON iteration
//     stats): tensorrt_llm/metrics/collector.py at NVIDIA/TensorRT-LLM
//     050f80def8df236e326949c8bd9dee10fd896a83, prefix trtllm_. The KV-cache series need
//     enable_iter_perf_stats; the token counters return_perf_metrics. Paused requests are a
//     gauge, not a preemption count, so no series fills results.Preemptions. The same collector at
//     89fd9b74ab7ae753b4c6b3db25a400dca7ea54a0 named its series without a prefix
//     (request_success_total, e2e_request_latency_seconds, time_to_first_token_seconds, ...,
//     labelled engine_type="trtllm"): none of them is a series kept here, so such a page is
//     detected (package engine) but fills no key. Dynamo's TensorRT-LLM worker passes the
//     trtllm_ names through (components/src/dynamo/trtllm/workers/llm_worker.py at
//     ai-dynamo/dynamo 318ccac58064cf4f69cc05e15b628ce23d281509); its Prometheus helper can
//     instead add a trtllm: prefix to unprefixed names (add_prefix in
//     components/src/dynamo/common/utils/prometheus.py), so those are read too.
//   - Triton's TensorRT-LLM backend: inflight_batcher_llm/src/custom_metrics_reporter/
//     custom_metrics_reporter.cc at triton-inference-server/tensorrtllm_backend
//     27e4bfbd3acb05b9b41417d5256553592a31b505 and 7f9aa4680aafaebce2d7576b5a40d5ddc7c3cbaa:
//     one gauge family per group, its series told apart by a label (request_type active, max,
//     scheduled, context), so each is selected by name and label, never summed over labels.
//     Neither commit serves a waiting count or a usage fraction (request_type="waiting" and
//     kv_cache_block_type="fraction" are read where later backends serve them).
var TRTLLM = Names{Source: "TensorRT-LLM", Series: []Series{
	{results.PrefixCacheQueriedTokens, []string{"trtllm_prompt_tokens_total", "trtllm:prompt_tokens_total"}, Counter},
	{results.PrefixCacheHitTokens, []string{"trtllm_prompt_cached_tokens_total", "trtllm:prompt_cached_tokens_total"}, Counter},
	{results.RequestsRunning, []string{"trtllm_num_requests_running", "trtllm:num_requests_running", `nv_trt_llm_request_metrics{request_type="active"}`}, Gauge},
	{results.RequestsWaiting, []string{"trtllm_num_requests_waiting", "trtllm:num_requests_waiting", `nv_trt_llm_request_metrics{request_type="waiting"}`}, Gauge},
	{results.KVCacheUsage, []string{"trtllm_kv_cache_utilization", "trtllm:kv_cache_utilization", `nv_trt_llm_kv_cache_block_metrics{kv_cache_block_type="fraction"}`}, Mean},
	{results.GenerationTokens, []string{"trtllm_generation_tokens_total", "trtllm:generation_tokens_total"}, Counter},
	{results.PrefixCacheHitRate, []string{"trtllm_kv_cache_hit_rate", "trtllm:kv_cache_hit_rate"}, Mean},
	{results.SpecDraftTokens, []string{"trtllm_spec_decode_num_draft_tokens_total", "trtllm:spec_decode_num_draft_tokens_total"}, Counter},
	{results.SpecAcceptedTokens, []string{"trtllm_spec_decode_num_accepted_tokens_total", "trtllm:spec_decode_num_accepted_tokens_total"}, Counter},
}}

// LlamaCpp is llama.cpp's server (tools/server, GET /metrics, served with --metrics; build
// b11669's page is scrape/testdata/llamacpp-b11669.metrics): requests processing and
// deferred, the prompt tokens, the decode counters and the throughput gauges. Its
// prompt_tokens_total leaves out the tokens reused from its cache (the page's help text
// says "excluding cached tokens"; prompt_tokens_cached_total counts those), so, read as
// vLLM's prefix cache is, the tokens queried are the two added and the hits the cached
// ones. llamacpp:kv_cache_usage_ratio is kept as an older name: earlier builds served it,
// b11669 serves no KV-cache usage gauge.
var LlamaCpp = Names{Source: "llama.cpp", Series: []Series{
	{results.PrefixCacheQueriedTokens, []string{"llamacpp:prompt_tokens_total", "llamacpp:prompt_tokens_cached_total"}, Parts},
	{results.PrefixCacheHitTokens, []string{"llamacpp:prompt_tokens_cached_total"}, Counter},
	{results.RequestsRunning, []string{"llamacpp:requests_processing"}, Gauge},
	{results.RequestsWaiting, []string{"llamacpp:requests_deferred"}, Gauge},
	{results.KVCacheUsage, []string{"llamacpp:kv_cache_usage_ratio"}, Mean},
	{results.GenerationTokens, []string{"llamacpp:tokens_predicted_total"}, Counter},
	{DecodeCalls, []string{DecodeCalls}, Counter},
	{results.GenerationThroughput, []string{"llamacpp:predicted_tokens_seconds"}, Gauge},
	{results.PromptThroughput, []string{"llamacpp:prompt_tokens_seconds"}, Gauge},
	// Speculative decoding's drafted and accepted tokens (b11669 serves both, 0 without a
	// draft model; the page's help text names them).
	{results.SpecDraftTokens, []string{"llamacpp:spec_decode_num_draft_tokens_total"}, Counter},
	{results.SpecAcceptedTokens, []string{"llamacpp:spec_decode_num_accepted_tokens_total"}, Counter},
}}

// Any reads whichever engine's names a page carries (for an endpoint of unknown make): every
// table's names for each key, vLLM's first.
var Any = union("any engine", VLLM, SGLang, TRTLLM, LlamaCpp, TGI)

// ForEngine is the table for an engine by the name package engine gives it (vllm, sglang,
// tgi, trtllm, llamacpp); any other (generic, auto, "") reads Any. Ollama and managed APIs
// serve no metrics page: the caller should not scrape them at all.
func ForEngine(name string) Names {
	switch name {
	case "vllm":
		return VLLM
	case "sglang":
		return SGLang
	case "tgi":
		return TGI
	case "trtllm":
		return TRTLLM
	case "llamacpp":
		return LlamaCpp
	}
	return Any
}

// union merges tables key by key, keeping the first table's order and kind. A series read in
// Parts is left out: beside other engines' names, where the first present wins, one
// part alone would pass for the whole (llama.cpp's uncached prompt tokens for the queried
// ones).
func union(source string, tables ...Names) Names {
	out := Names{Source: source}
	at := map[string]int{}
	for _, t := range tables {
		for _, s := range t.Series {
			if s.Kind == Parts {
				continue
			}
			i, ok := at[s.Key]
			if !ok {
				at[s.Key] = len(out.Series)
				out.Series = append(out.Series, Series{Key: s.Key, Kind: s.Kind})
				i = len(out.Series) - 1
			}
			out.Series[i].From = append(out.Series[i].From, s.From...)
		}
	}
	return out
}
