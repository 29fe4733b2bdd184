package scrape

// The series kept, under vLLM's names (the built-in simulator serves the same ones). Prefix-cache
// queries and hits count prompt tokens; the usage gauge is a fraction, 1 meaning full.
const (
	PrefixCacheQueries = "vllm:prefix_cache_queries_total"
	PrefixCacheHits    = "vllm:prefix_cache_hits_total"
	RequestsRunning    = "vllm:num_requests_running"
	RequestsWaiting    = "vllm:num_requests_waiting"
	KVCacheUsage       = "vllm:kv_cache_usage_perc"
)

// gpuCacheUsage is the older vLLM name of KVCacheUsage; it is read as KVCacheUsage when the
// newer one is absent.
const gpuCacheUsage = "vllm:gpu_cache_usage_perc"

// Names lists the kept series in the order they are written.
var Names = []string{PrefixCacheQueries, PrefixCacheHits, RequestsRunning, RequestsWaiting, KVCacheUsage}

// counters are the series whose increase over the run is summed (resets tolerated).
var counters = []string{PrefixCacheQueries, PrefixCacheHits}

// averaged are gauges that, when a page has several label sets of them (several engines or
// models behind one endpoint), are averaged rather than summed.
var averaged = map[string]bool{KVCacheUsage: true, gpuCacheUsage: true}
