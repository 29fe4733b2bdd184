package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/llm-replay/replay/analysis"
)

// cacheConfigInfo is vLLM's info gauge of its KV cache: value 1, the engine's CacheConfig in
// its labels, num_gpu_blocks and block_size among them (vLLM's docs/design/metrics.md, "Cache
// Config Info"; vllm/v1/metrics/loggers.py, log_metrics_info("cache_config", ...), labels from
// CacheConfig.metrics_info(), so "None" until the blocks are profiled). The simulator serves it
// too (sim/metrics.go).
const cacheConfigInfo = "vllm:cache_config_info"

// capacityTimeout bounds the one read of the metrics page.
const capacityTimeout = 10 * time.Second

// engineCapacity reads the engine's KV capacity off its metrics page: nil without an error when
// the page does not carry it (an engine other than vLLM, or a cache without prefix caching).
// It is read once, before the arm's requests; a page of several engines (data parallel) gives
// the sum of their caches, which no single request can use, so it is refused.
func engineCapacity(ctx context.Context, hc *http.Client, url string) (*analysis.EngineCapacity, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(ctx, capacityTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4;q=0.9,*/*;q=0.1")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("GET %s: HTTP %d", url, resp.StatusCode)
	}
	dec := expfmt.NewDecoder(io.LimitReader(resp.Body, 32<<20), expfmt.ResponseFormat(resp.Header))
	for {
		var mf dto.MetricFamily
		err := dec.Decode(&mf)
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("GET %s: %w", url, err)
		}
		if mf.GetName() != cacheConfigInfo {
			continue
		}
		return capacityOf(mf.GetMetric(), url)
	}
}

// capacityOf reads the labels of cache_config_info's series.
func capacityOf(ms []*dto.Metric, url string) (*analysis.EngineCapacity, error) {
	if len(ms) != 1 {
		return nil, fmt.Errorf("%s: %s has %d series (one per engine?): the capacity of one cache is not known; give --engine-kv-tokens", url, cacheConfigInfo, len(ms))
	}
	labels := map[string]string{}
	for _, l := range ms[0].GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	if labels["enable_prefix_caching"] == "False" {
		return nil, fmt.Errorf("%s: %s says enable_prefix_caching=False: the engine caches no prefixes", url, cacheConfigInfo)
	}
	blocks, errB := strconv.Atoi(labels["num_gpu_blocks"])
	size, errS := strconv.Atoi(labels["block_size"])
	if errB != nil || errS != nil || blocks <= 0 || size <= 0 {
		return nil, fmt.Errorf("%s: %s num_gpu_blocks=%q block_size=%q: want positive whole numbers", url, cacheConfigInfo, labels["num_gpu_blocks"], labels["block_size"])
	}
	return &analysis.EngineCapacity{Source: cacheConfigInfo + " at " + url, Blocks: blocks, BlockSize: size,
		Tokens: int64(blocks) * int64(size)}, nil
}
