// Package cachestudy is replay cache-study: how much prefix caching buys one endpoint on one
// trace. It drives runner.Run twice over the same window on the same schedule (every request
// given fresh blocks, then the prefixes as traced, the engine's prefix cache reset before
// each), reads the engine's KV capacity through scrape once each arm's target is up
// (vLLM's vllm:cache_config_info) and draws the trace's LRU curve over the traced arm's prompts
// (prefixcache); from both arms' summaries and rows it writes the verdict (what caching saved,
// the paired TTFT difference, the measured hit rate against the curve's prediction at the
// engine's capacity) as cache_study.json and cache_study.html, drawn with analysis's page
// chrome. It must not send requests but through runner.Run, parse a metrics page (scrape
// does) or compute a run's figures (each arm's summary.json is the truth it reads); runner and
// analysis never import it.
package cachestudy
