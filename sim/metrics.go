package sim

import (
	"bytes"
	"net/http"
	"strconv"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// metrics writes the engine state in Prometheus text format under vLLM's metric names, so
// dashboards and scrapers built for vLLM read the simulator unchanged. Prefix-cache queries and
// hits count tokens, as vLLM's do.
func (s *Server) metrics(w http.ResponseWriter, r *http.Request) {
	var snap snapshot
	if s.started.Load() && !s.cfg.ZeroCost {
		snap = s.eng.snapshot()
	}
	snap.promptTokens += s.zPrompt.Load()
	snap.generationTokens += s.zGen.Load()
	snap.success += s.zSuccess.Load()

	model := []*dto.LabelPair{{Name: ptr("model_name"), Value: ptr(s.cfg.ModelName)}}
	gauge := func(name, help string, v float64) *dto.MetricFamily {
		return &dto.MetricFamily{Name: ptr(name), Help: ptr(help), Type: dto.MetricType_GAUGE.Enum(),
			Metric: []*dto.Metric{{Label: model, Gauge: &dto.Gauge{Value: ptr(v)}}}}
	}
	counter := func(name, help string, v uint64, extra ...*dto.LabelPair) *dto.MetricFamily {
		labels := append(append([]*dto.LabelPair(nil), extra...), model...)
		return &dto.MetricFamily{Name: ptr(name), Help: ptr(help), Type: dto.MetricType_COUNTER.Enum(),
			Metric: []*dto.Metric{{Label: labels, Counter: &dto.Counter{Value: ptr(float64(v))}}}}
	}
	families := []*dto.MetricFamily{
		gauge("vllm:num_requests_running", "Number of requests in model execution batches.", float64(snap.running)),
		gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", float64(snap.waiting)),
		gauge("vllm:gpu_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", snap.kvUsage),
		gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", snap.kvUsage),
		counter("vllm:prefix_cache_queries_total", "Prefix cache queries, in terms of number of queried tokens.", snap.cacheQueries),
		counter("vllm:prefix_cache_hits_total", "Prefix cache hits, in terms of number of cached tokens.", snap.cacheHits),
		counter("vllm:prompt_tokens_total", "Number of prefill tokens processed.", snap.promptTokens),
		counter("vllm:generation_tokens_total", "Number of generation tokens processed.", snap.generationTokens),
		counter("vllm:request_success_total", "Count of successfully processed requests.", snap.success,
			&dto.LabelPair{Name: ptr("finished_reason"), Value: ptr("length")}),
	}
	families = append(families, s.cacheConfigInfo())
	var buf bytes.Buffer
	for _, f := range families {
		if _, err := expfmt.MetricFamilyToText(&buf, f); err != nil {
			http.Error(w, "writing metrics: "+err.Error(), http.StatusInternalServerError)
			return
		}
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Write(buf.Bytes())
}

func ptr[T any](v T) *T { return &v }

// cacheConfigInfo is vLLM's info gauge of its KV cache, so that a tool reading a vLLM page
// learns the simulator's capacity the same way: vllm:cache_config_info, value 1, the cache's
// configuration in its labels (vLLM's docs/design/metrics.md, "Cache Config Info";
// vllm/v1/metrics/loggers.py log_metrics_info("cache_config", ...) labels it with every
// CacheConfig field, block_size and num_gpu_blocks among them). Only the fields the simulator
// models are given, and model_name as every family of this page has it; without an engine
// (ZeroCost) nothing is cached.
func (s *Server) cacheConfigInfo() *dto.MetricFamily {
	caching := "True"
	if s.cfg.ZeroCost {
		caching = "False"
	}
	labels := []*dto.LabelPair{
		{Name: ptr("block_size"), Value: ptr(strconv.Itoa(s.cfg.BlockSize))},
		{Name: ptr("enable_prefix_caching"), Value: ptr(caching)},
		{Name: ptr("num_gpu_blocks"), Value: ptr(strconv.Itoa(s.cfg.NumBlocks))},
		{Name: ptr("model_name"), Value: ptr(s.cfg.ModelName)}, // last, as on every family here
	}
	return &dto.MetricFamily{Name: ptr("vllm:cache_config_info"), Help: ptr("Information of the LLMEngine CacheConfig"),
		Type: dto.MetricType_GAUGE.Enum(), Metric: []*dto.Metric{{Label: labels, Gauge: &dto.Gauge{Value: ptr(1.0)}}}}
}
