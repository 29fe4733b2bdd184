package runner

import (
	"fmt"
	"net/url"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/scrape"
	"github.com/llm-replay/replay/synth"
	"github.com/llm-replay/replay/trace"
)

// resolveMetricsURL turns --metrics-url into the page to scrape, "" for none: by default the
// endpoint's scheme://host/metrics, where vLLM (and the simulator) serve it whatever the API
// path.
func resolveMetricsURL(flag, endpoint string) (string, error) {
	switch flag {
	case "none":
		return "", nil
	case "":
		u, err := url.Parse(endpoint)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return "", fmt.Errorf("--endpoint %q: want a URL such as http://127.0.0.1:8000/v1", endpoint)
		}
		return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/metrics"}).String(), nil
	}
	u, err := url.Parse(flag)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("--metrics-url %q: want a URL such as http://127.0.0.1:8000/metrics, or none", flag)
	}
	return flag, nil
}

// serverCache turns what the scraper saw into the summary's figures: the prefix-cache
// counters' increases in tokens, or in blocks where the engine counts blocks, each saying
// which of the page's series it came from.
func serverCache(r scrape.Result) *analysis.ServerCache {
	c := &analysis.ServerCache{MetricsURL: r.URL, Scrapes: r.Scrapes, Failures: r.Failures, FirstError: r.FirstError,
		BadLines: r.BadLines, DroppedValues: r.Dropped, ReadAs: r.Source}
	samples := 0
	for _, smp := range r.Samples {
		samples += len(smp.Values)
	}
	c.Samples = &samples
	qKey, hKey, unit := results.PrefixCacheQueriedTokens, results.PrefixCacheHitTokens, "tokens"
	q, okQ := r.Increase[qKey]
	h, okH := r.Increase[hKey]
	if !okQ && !okH {
		qKey, hKey, unit = results.PrefixCacheQueriedBlocks, results.PrefixCacheHitBlocks, "blocks"
		q, okQ = r.Increase[qKey]
		h, okH = r.Increase[hKey]
	}
	counted := func(v float64, ok bool) *float64 {
		if ok {
			return &v
		}
		return nil
	}
	if unit == "tokens" {
		c.QueriedTokens, c.HitTokens = counted(q, okQ), counted(h, okH)
	} else {
		c.QueriedBlocks, c.HitBlocks = counted(q, okQ), counted(h, okH)
	}
	if okQ || okH {
		c.Source = fmt.Sprintf("%s's page: increases of %s and %s, in %s", r.Source, servedAs(r, qKey), servedAs(r, hKey), unit)
	}
	c.Absent = cacheAbsent(r, okQ, okH)
	d, okD := r.Increase[results.SpecDraftTokens]
	a, okA := r.Increase[results.SpecAcceptedTokens]
	if okD && okA {
		c.SpecDecode = analysis.NewSpecDecode(d, a)
		c.SpecDecode.Source = fmt.Sprintf("%s's page: increases of %s and %s", r.Source, servedAs(r, results.SpecDraftTokens), servedAs(r, results.SpecAcceptedTokens))
	}
	return c
}

// servedAs is the page's name for a key, "none" when the page never served it.
func servedAs(r scrape.Result, key string) string {
	if name, ok := r.From[key]; ok {
		return name
	}
	return "none"
}

// cacheAbsent says why the server's hit rate is missing, "" when it is not.
func cacheAbsent(r scrape.Result, queries, hits bool) string {
	gauge := ""
	if name, ok := r.From[results.PrefixCacheHitRate]; ok {
		gauge = fmt.Sprintf("; the page's hit-rate gauge %s is kept in server_metrics.jsonl as %s (a rate per logging interval, not a count over the run)", name, results.PrefixCacheHitRate)
	}
	switch {
	case queries && hits:
		return ""
	case r.Scrapes < 2:
		return fmt.Sprintf("%d successful scrape(s); a counter's increase needs two", r.Scrapes)
	case queries:
		// SGLang creates sglang:cached_tokens_total at its first cached token
		// (python/sglang/srt/metrics/collector.py, sgl-project/sglang 93d04878cfb9b08645fae7b11bd340ee33b34acf).
		return "the page has a query counter but no prefix-cache hit counter (none served, or none hit yet)" + gauge
	}
	return "the page has no prefix-cache counters " + r.Source + " reads" + gauge
}

// idealCache is the trace's own prefix-cache hit rate over the prompts as built: their block
// hashes (after capping) at the run's block size, in send order, through an infinite cache.
func idealCache(reqs []synth.Request, blockSize int) *analysis.IdealCache {
	ic := analysis.NewIdealCounter()
	for i := range reqs {
		r := &reqs[i]
		bs := blockSize
		if bs <= 0 {
			bs = r.Record.BlockSize
		}
		ic.Add(r.BlockHashes, bs, r.TargetPromptTokens)
		ic.AddLogged(loggedCached(r.Record), r.TargetPromptTokens)
	}
	return ic.Result()
}

// loggedCached is a record's logged cached prompt tokens, nil when the log does not say.
func loggedCached(rec trace.Record) *int {
	if rec.Options == nil {
		return nil
	}
	return rec.Options.CachedTokens
}
