package sim

import (
	"bytes"
	"net/http"

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
