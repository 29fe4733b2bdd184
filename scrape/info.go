package scrape

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// CacheConfigInfo is vLLM's info gauge of its KV cache: value 1, the engine's CacheConfig in
// its labels, num_gpu_blocks and block_size among them (vLLM's docs/design/metrics.md, "Cache
// Config Info"; vllm/v1/metrics/loggers.py, log_metrics_info("cache_config", ...), labels from
// CacheConfig.metrics_info(), so "None" until the blocks are profiled). The simulator serves it
// too (sim/metrics.go).
const CacheConfigInfo = "vllm:cache_config_info"

// InfoLabels reads the metrics page at url once with hc (nil: http.DefaultClient) and returns
// the label sets of the series named name, one map a series: what an info metric (a gauge of
// value 1, such as CacheConfigInfo) says is in its labels. Nil without an error when the page
// does not carry name (a family of that name without series gives an empty, non-nil slice). It reads the page once, not on an interval: a configuration does not
// change while the engine runs.
func InfoLabels(ctx context.Context, hc *http.Client, url, name string) ([]map[string]string, error) {
	resp, err := getPage(ctx, hc, url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	dec := expfmt.NewDecoder(io.LimitReader(resp.Body, maxPage), expfmt.ResponseFormat(resp.Header))
	for {
		var mf dto.MetricFamily
		err := dec.Decode(&mf)
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("GET %s: %w", url, err)
		}
		if mf.GetName() != name {
			continue
		}
		out := make([]map[string]string, 0, len(mf.GetMetric()))
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			out = append(out, labels)
		}
		return out, nil
	}
}

// getPage asks url for its metrics page with hc (nil: http.DefaultClient), preferring the
// classic text format, which every Prometheus client library serves; a status other than 2xx
// is an error naming the URL, its body drained.
func getPage(ctx context.Context, hc *http.Client, url string) (*http.Response, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4;q=0.9,*/*;q=0.1")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err // a *url.Error, which names the method and URL
	}
	if resp.StatusCode/100 != 2 {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: HTTP %d", url, resp.StatusCode)
	}
	return resp, nil
}
