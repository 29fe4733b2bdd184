package cachestudy

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/llm-replay/replay/scrape"
)

// capacityTimeout bounds the one read of the metrics page.
const capacityTimeout = 10 * time.Second

// engineCapacity reads the engine's KV capacity off its metrics page (scrape.InfoLabels of
// vLLM's scrape.CacheConfigInfo, with the run's client hc): nil without an error when the page
// does not carry it (an engine other than vLLM, or a cache without prefix caching). It is read
// once, before the arm's requests; a page of several engines (data parallel) gives the sum of
// their caches, which no single request can use, so it is refused.
func engineCapacity(ctx context.Context, hc *http.Client, url string) (*EngineCapacity, error) {
	ctx, cancel := context.WithTimeout(ctx, capacityTimeout)
	defer cancel()
	series, err := scrape.InfoLabels(ctx, hc, url, scrape.CacheConfigInfo)
	if err != nil || series == nil {
		return nil, err
	}
	return capacityOf(series, url)
}

// capacityOf reads the labels of cache_config_info's series.
func capacityOf(series []map[string]string, url string) (*EngineCapacity, error) {
	const info = scrape.CacheConfigInfo
	if len(series) != 1 {
		return nil, fmt.Errorf("%s: %s has %d series (one per engine?): the capacity of one cache is not known; give --engine-kv-tokens", url, info, len(series))
	}
	labels := series[0]
	if labels["enable_prefix_caching"] == "False" {
		return nil, fmt.Errorf("%s: %s says enable_prefix_caching=False: the engine caches no prefixes", url, info)
	}
	blocks, errB := strconv.Atoi(labels["num_gpu_blocks"])
	size, errS := strconv.Atoi(labels["block_size"])
	if errB != nil || errS != nil || blocks <= 0 || size <= 0 {
		return nil, fmt.Errorf("%s: %s num_gpu_blocks=%q block_size=%q: want positive whole numbers", url, info, labels["num_gpu_blocks"], labels["block_size"])
	}
	return &EngineCapacity{Source: info + " at " + url, Blocks: blocks, BlockSize: size,
		Tokens: int64(blocks) * int64(size)}, nil
}
