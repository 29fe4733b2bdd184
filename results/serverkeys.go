package results

// The keys a server-metrics line holds beside t_s and unix_ms. They are neutral: the same key
// for every engine, whichever of its own names filled it (package scrape's tables say which),
// so an SGLang run's samples are not stored under vLLM's names. A series only one engine serves
// keeps that engine's own name (sglang:spec_accept_length, llamacpp:n_decode_total), and the
// DCGM exporter's series keep theirs, per GPU.
const (
	// PrefixCacheQueriedTokens and PrefixCacheHitTokens count the prompt tokens looked up in
	// the engine's prefix cache and those found there (counters).
	PrefixCacheQueriedTokens = "prefix_cache_queried_tokens"
	PrefixCacheHitTokens     = "prefix_cache_hit_tokens"
	// PrefixCacheQueriedBlocks and PrefixCacheHitBlocks are the same counters where the
	// engine counts KV blocks instead (vLLM's early v1 said so in the counters' help text).
	PrefixCacheQueriedBlocks = "prefix_cache_queried_blocks"
	PrefixCacheHitBlocks     = "prefix_cache_hit_blocks"
	// PrefixCacheHitRate is an engine's own hit-rate gauge, as a fraction of 1.
	PrefixCacheHitRate = "prefix_cache_hit_rate"
	// RequestsRunning and RequestsWaiting are the engine's queue: requests in its batch and
	// those held back (gauges).
	RequestsRunning = "requests_running"
	RequestsWaiting = "requests_waiting"
	// KVCacheUsage is the share of the KV cache in use, a fraction, 1 meaning full.
	KVCacheUsage = "kv_cache_usage"
	// GenerationTokens counts the output tokens the engine generated.
	GenerationTokens = "generation_tokens"
	// Preemptions counts requests preempted (SGLang: retracted) for lack of KV-cache room.
	Preemptions = "preemptions"
	// GenerationThroughput and PromptThroughput are the engine's own tokens-per-second gauges.
	GenerationThroughput = "generation_tokens_per_s"
	PromptThroughput     = "prompt_tokens_per_s"
	// SpecDraftTokens and SpecAcceptedTokens count the tokens speculative decoding drafted
	// and those the target model accepted; their increases' ratio is the acceptance rate.
	SpecDraftTokens    = "spec_decode_draft_tokens"
	SpecAcceptedTokens = "spec_decode_accepted_tokens"
)

// legacyKeys are the keys files written before the neutral ones held (every engine's series
// under vLLM's names), read as today's so older runs still load and compare.
var legacyKeys = map[string]string{
	"vllm:prefix_cache_queries_total":            PrefixCacheQueriedTokens,
	"vllm:prefix_cache_hits_total":               PrefixCacheHitTokens,
	"vllm:gpu_prefix_cache_hit_rate":             PrefixCacheHitRate,
	"vllm:num_requests_running":                  RequestsRunning,
	"vllm:num_requests_waiting":                  RequestsWaiting,
	"vllm:kv_cache_usage_perc":                   KVCacheUsage,
	"vllm:generation_tokens_total":               GenerationTokens,
	"vllm:num_preemptions_total":                 Preemptions,
	"vllm:avg_generation_throughput_toks_per_s":  GenerationThroughput,
	"vllm:avg_prompt_throughput_toks_per_s":      PromptThroughput,
	"vllm:spec_decode_num_draft_tokens_total":    SpecDraftTokens,
	"vllm:spec_decode_num_accepted_tokens_total": SpecAcceptedTokens,
}

// currentKey is the key a file's key is read as: itself, or its neutral successor.
func currentKey(k string) string {
	if n, ok := legacyKeys[k]; ok {
		return n
	}
	return k
}
