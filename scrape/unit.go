package scrape

import (
	"strings"

	dto "github.com/prometheus/client_model/go"

	"github.com/llm-replay/replay/results"
)

// inBlocks are the token-counting keys with a twin for engines that count KV blocks. vLLM's
// early v1 served vllm:gpu_prefix_cache_queries/hits "in terms of number of queried blocks"
// (vllm/v1/metrics/loggers.py at vllm-project/vllm a6f0308cfe806b7731ad4979c9bea6e470c35efd),
// later releases the same names "in terms of number of queried tokens": the name does not
// tell, the help text does.
var inBlocks = map[string]string{
	results.PrefixCacheQueriedTokens: results.PrefixCacheQueriedBlocks,
	results.PrefixCacheHitTokens:     results.PrefixCacheHitBlocks,
}

// countsBlocks reports whether a family kept under key counts blocks rather than tokens, by
// its help text; a page without help text is read as counting tokens, as current engines do.
func countsBlocks(key string, mf *dto.MetricFamily) bool {
	_, ok := inBlocks[key]
	return ok && strings.Contains(strings.ToLower(mf.GetHelp()), "blocks")
}
