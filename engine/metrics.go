package engine

// MetricsPath is where e serves its Prometheus page under the server root: /metrics, except
// trtllm-serve's /prometheus/metrics (tensorrt_llm/serve/openai_server.py mounts it there; its
// /metrics is JSON iteration stats). "" for engines that serve none: Ollama (server/routes.go
// has no /metrics) and managed APIs.
func (e Engine) MetricsPath() string {
	switch e {
	case TRTLLM:
		return "/prometheus/metrics"
	case Ollama, OpenAI:
		return ""
	}
	return "/metrics"
}

// MetricsNote says what it takes for e to serve its metrics, or why it serves none: the
// sentence the run prints when the page is missing.
func (e Engine) MetricsNote() string {
	switch e {
	case VLLM:
		return "vLLM serves /metrics by default"
	case SGLang:
		return "SGLang serves /metrics only when started with --enable-metrics"
	case TGI:
		return "TGI serves /metrics by default"
	case TRTLLM:
		return "trtllm-serve serves Prometheus metrics at /prometheus/metrics; its KV-cache series need enable_iter_perf_stats"
	case LlamaCpp:
		return "llama-server serves /metrics only when started with --metrics"
	case Ollama:
		return "Ollama serves no Prometheus metrics"
	case OpenAI:
		return "a managed API serves no server metrics"
	}
	return "an unknown engine may serve /metrics; any engine's names are read there"
}

// MetricsURL is e's metrics page for the API root baseURL (--endpoint), "" when e serves none.
func (e Engine) MetricsURL(baseURL string) (string, error) {
	root, err := ServerRoot(baseURL)
	if err != nil || e.MetricsPath() == "" {
		return "", err
	}
	return root + e.MetricsPath(), nil
}

// MetricsURL is the chosen engine's metrics page for the API root baseURL: the page detection
// found its names on, else where the engine serves them by default ("" for none). Triton's
// TensorRT-LLM backend is taken for TensorRT-LLM by its nv_trt_llm_ names on /metrics, and
// must be scraped there, not at trtllm-serve's /prometheus/metrics.
func (c Choice) MetricsURL(baseURL string) (string, error) {
	if c.MetricsPath == "" {
		return c.Engine.MetricsURL(baseURL)
	}
	root, err := ServerRoot(baseURL)
	if err != nil {
		return "", err
	}
	return root + c.MetricsPath, nil
}
