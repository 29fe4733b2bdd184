package scrape

import "github.com/llm-replay/replay/results"

// gpuCacheUsage is the older vLLM name of results.KVCacheUsage; it is read as that when the
// newer one is absent.
const gpuCacheUsage = "vllm:gpu_cache_usage_perc"

// Names lists the series kept (those of the server-metrics file, named in package results) in
// the order they are written.
var Names = []string{
	results.PrefixCacheQueries, results.PrefixCacheHits, results.RequestsRunning, results.RequestsWaiting, results.KVCacheUsage,
}

// counters are the series whose increase over the run is summed (resets tolerated).
var counters = []string{results.PrefixCacheQueries, results.PrefixCacheHits}

// averaged are gauges that, when a page has several label sets of them (several engines or
// models behind one endpoint), are averaged rather than summed.
var averaged = map[string]bool{results.KVCacheUsage: true, gpuCacheUsage: true}
