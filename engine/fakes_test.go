package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Loopback servers answering like each engine, with the source of every shape. Paths a real
// engine does not serve answer 404 as its framework does.

// fake is an engine's routes, with a log of the requests it saw.
type fake struct {
	mu     sync.Mutex
	seen   []string // "METHOD /path"
	bodies []map[string]any
	routes map[string]http.HandlerFunc // "METHOD /path" or "/path" for any method
	server string                      // the Server header, "" for none
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.seen = append(f.seen, r.Method+" "+r.URL.Path)
	if r.Body != nil {
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b)) // the route reads it again
		var m map[string]any
		if json.Unmarshal(b, &m) == nil {
			f.bodies = append(f.bodies, m)
		}
	}
	f.mu.Unlock()
	if f.server != "" {
		w.Header().Set("Server", f.server)
	}
	h, ok := f.routes[r.Method+" "+r.URL.Path]
	if !ok {
		h, ok = f.routes[r.URL.Path]
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	h(w, r)
}

func (f *fake) calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.seen...)
}

func (f *fake) lastBody() map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.bodies) == 0 {
		return nil
	}
	return f.bodies[len(f.bodies)-1]
}

func serve(t *testing.T, f *fake) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv
}

func jsonBody(v string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, v)
	}
}

func text(v string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		fmt.Fprint(w, v)
	}
}

func empty(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) }

// vllmFake: vLLM's OpenAI server (uvicorn). /v1/models: ModelCard with owned_by "vllm", root,
// max_model_len, permission (vllm/entrypoints/openai/protocol.py); /version {"version"} and
// /health empty (vllm/entrypoints/openai/api_server.py); /metrics with vllm: names (docs,
// Production Metrics); POST /reset_prefix_cache when VLLM_SERVER_DEV_MODE=1
// (vllm/entrypoints/serve/cache/api_router.py).
func vllmFake(devMode bool) *fake {
	f := &fake{server: "uvicorn", routes: map[string]http.HandlerFunc{
		"GET /v1/models": jsonBody(`{"object":"list","data":[{"id":"meta-llama/Llama-3.1-8B-Instruct","object":"model","created":1735000000,` +
			`"owned_by":"vllm","root":"meta-llama/Llama-3.1-8B-Instruct","parent":null,"max_model_len":8192,` +
			`"permission":[{"id":"modelperm-1","object":"model_permission","created":1735000000,"allow_create_engine":false,` +
			`"allow_sampling":true,"allow_logprobs":true,"allow_search_indices":false,"allow_view":true,"allow_fine_tuning":false,` +
			`"organization":"*","group":null,"is_blocking":false}]}]}`),
		"GET /version": jsonBody(`{"version":"0.11.0"}`),
		"GET /health":  empty,
		"GET /metrics": text("# HELP vllm:num_requests_running Number of requests in model execution batches.\n" +
			"# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine=\"0\",model_name=\"m\"} 0.0\n" +
			"# TYPE vllm:kv_cache_usage_perc gauge\nvllm:kv_cache_usage_perc{engine=\"0\",model_name=\"m\"} 0.0\n" +
			"# TYPE vllm:prefix_cache_queries_total counter\nvllm:prefix_cache_queries_total{engine=\"0\",model_name=\"m\"} 0.0\n" +
			"# TYPE python_gc_objects_collected_total counter\npython_gc_objects_collected_total{generation=\"0\"} 123.0\n"),
	}}
	if devMode {
		f.routes["POST /reset_prefix_cache"] = empty
	}
	return f
}

// sglangFake: SGLang's HTTP server (python/sglang/srt/entrypoints/http_server.py): ModelCard
// owned_by "sglang" with root and max_model_len (python/sglang/srt/entrypoints/openai/protocol.py);
// /get_server_info = server args + version; /health empty; /metrics with --enable-metrics;
// /flush_cache (GET or POST), 400 while requests run.
func sglangFake(busy bool) *fake {
	flush := func(w http.ResponseWriter, r *http.Request) {
		if busy {
			w.WriteHeader(http.StatusBadRequest)
		}
		fmt.Fprint(w, "Cache flushed.\nPlease check backend logs for more details. (When there are running or waiting requests, the operation will not be performed.)\n")
	}
	return &fake{server: "uvicorn", routes: map[string]http.HandlerFunc{
		"GET /v1/models": jsonBody(`{"object":"list","data":[{"id":"Qwen/Qwen2.5-7B-Instruct","object":"model","created":1735000000,` +
			`"owned_by":"sglang","root":"Qwen/Qwen2.5-7B-Instruct","max_model_len":32768}]}`),
		"GET /get_server_info": jsonBody(`{"model_path":"Qwen/Qwen2.5-7B-Instruct","tokenizer_path":"Qwen/Qwen2.5-7B-Instruct","tp_size":1,` +
			`"enable_metrics":true,"internal_states":[{"last_gen_throughput":0.0}],"version":"0.4.6.post1"}`),
		"GET /health": empty,
		"GET /metrics": text("# HELP sglang:num_running_reqs The number of running requests\n# TYPE sglang:num_running_reqs gauge\n" +
			"sglang:num_running_reqs{model_name=\"Qwen/Qwen2.5-7B-Instruct\"} 0.0\n" +
			"# TYPE sglang:token_usage gauge\nsglang:token_usage{model_name=\"Qwen/Qwen2.5-7B-Instruct\"} 0.0\n"),
		"/flush_cache": flush,
	}}
}

// tgiFake: TGI's router (axum; router/src/server.rs): /v1/models with the model id as
// owned_by and created 0; /info (router/src/lib.rs, struct Info) with router
// "text-generation-router"; GET / and /health empty; /metrics with tgi_ names.
func tgiFake() *fake {
	return &fake{routes: map[string]http.HandlerFunc{
		"GET /v1/models": jsonBody(`{"object":"list","data":[{"id":"mistralai/Mistral-7B-Instruct-v0.3","object":"model","created":0,` +
			`"owned_by":"mistralai/Mistral-7B-Instruct-v0.3"}]}`),
		"GET /info": jsonBody(`{"model_id":"mistralai/Mistral-7B-Instruct-v0.3","model_sha":"e0bc86c23ce5aae1db576c8cca6f06f1f73af2db",` +
			`"model_pipeline_tag":"text-generation","max_concurrent_requests":128,"max_best_of":2,"max_stop_sequences":4,` +
			`"max_input_tokens":8191,"max_total_tokens":8192,"validation_workers":2,"max_client_batch_size":4,` +
			`"router":"text-generation-router","version":"3.0.1","sha":"bb9095aae339579fbf3b4e7df7d9de8e09e45e5d","docker_label":"sha-bb9095a"}`),
		"GET /":       empty,
		"GET /health": empty,
		"GET /metrics": text("# TYPE tgi_queue_size gauge\ntgi_queue_size 0\n# TYPE tgi_batch_current_size gauge\ntgi_batch_current_size 0\n" +
			"# TYPE tgi_request_count counter\ntgi_request_count 0\n"),
	}}
}

// trtllmFake: trtllm-serve (tensorrt_llm/serve/openai_server.py): /health empty, /version
// {"version"}, /v1/models owned_by "tensorrt_llm" (openai_protocol.py), /metrics the JSON
// iteration stats (get_iteration_stats), /prometheus/metrics the trtllm_ page.
func trtllmFake() *fake {
	return &fake{server: "uvicorn", routes: map[string]http.HandlerFunc{
		"GET /v1/models": jsonBody(`{"object":"list","data":[{"id":"meta-llama/Llama-3.1-8B-Instruct","object":"model","created":1735000000,"owned_by":"tensorrt_llm"}]}`),
		"GET /version":   jsonBody(`{"version":"1.1.0"}`),
		"GET /health":    empty,
		"GET /metrics": jsonBody(`[{"iter":12,"iterLatencyMS":11.5,"numActiveRequests":2,"numQueuedRequests":0,"numCompletedRequests":1,` +
			`"gpuMemUsage":71000000000,"kvCacheStats":{"maxNumBlocks":4096,"freeNumBlocks":4000,"usedNumBlocks":96,"tokensPerBlock":32,` +
			`"allocTotalBlocks":96,"allocNewBlocks":64,"reusedBlocks":32,"missedBlocks":64,"cacheHitRate":0.33}}]`),
		"GET /prometheus/metrics": text("# TYPE trtllm_num_requests_running gauge\ntrtllm_num_requests_running{model_name=\"m\"} 2.0\n"),
	}}
}

// llamacppFake: llama-server (tools/server/README.md): /health {"status":"ok"}, /v1/models
// owned_by "llamacpp" with its meta, /props with build_info, /metrics with --metrics, and the
// web UI at /.
func llamacppFake() *fake {
	return &fake{routes: map[string]http.HandlerFunc{
		"GET /health": jsonBody(`{"status":"ok"}`),
		"GET /v1/models": jsonBody(`{"models":[{"name":"qwen2.5-7b-instruct-q4_k_m.gguf","model":"qwen2.5-7b-instruct-q4_k_m.gguf"}],` +
			`"object":"list","data":[{"id":"qwen2.5-7b-instruct-q4_k_m.gguf","object":"model","created":1735000000,"owned_by":"llamacpp",` +
			`"meta":{"vocab_type":2,"n_vocab":152064,"n_ctx_train":32768,"n_embd":3584,"n_params":7615616512,"size":4677120000}}]}`),
		"GET /props": jsonBody(`{"default_generation_settings":{"n_ctx":8192},"total_slots":4,"model_path":"qwen2.5-7b-instruct-q4_k_m.gguf",` +
			`"chat_template":"{{ messages }}","build_info":"b6000-1a2b3c4d"}`),
		"GET /metrics": text("# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.\n# TYPE llamacpp:prompt_tokens_total counter\n" +
			"llamacpp:prompt_tokens_total 0\n# TYPE llamacpp:requests_processing gauge\nllamacpp:requests_processing 0\n"),
		"GET /": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<!doctype html><html><title>llama.cpp</title></html>")
		},
	}}
}

// ollamaFake: Ollama (gin; server/routes.go): GET / "Ollama is running", /api/version
// {"version"}, /v1/models owned_by the namespace, "library" (openai/openai.go), no /health,
// no /metrics.
func ollamaFake() *fake {
	return &fake{routes: map[string]http.HandlerFunc{
		"GET /": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			fmt.Fprint(w, "Ollama is running")
		},
		"GET /api/version": jsonBody(`{"version":"0.17.4"}`),
		"GET /v1/models":   jsonBody(`{"object":"list","data":[{"id":"replay-chat:latest","object":"model","created":1735000000,"owned_by":"library"}]}`),
	}}
}

// openaiFake: OpenAI's API: /v1/models needs the key, answers with owned_by "system" and the
// openai-* headers its API reference documents; other paths 404 with an error object.
func openaiFake(key string) *fake {
	return &fake{server: "cloudflare", routes: map[string]http.HandlerFunc{
		"GET /v1/models": func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+key {
				w.WriteHeader(http.StatusUnauthorized)
				fmt.Fprint(w, `{"error":{"message":"You didn't provide an API key.","type":"invalid_request_error","param":null,"code":null}}`)
				return
			}
			w.Header().Set("openai-version", "2020-10-01")
			w.Header().Set("openai-processing-ms", "41")
			w.Header().Set("x-request-id", "req_123")
			jsonBody(`{"object":"list","data":[{"id":"gpt-4o-mini","object":"model","created":1721172741,"owned_by":"system"}]}`)(w, r)
		},
	}}
}

// genericFake: an OpenAI-compatible server of no known make: a model list, nothing else.
func genericFake() *fake {
	return &fake{routes: map[string]http.HandlerFunc{
		"GET /v1/models": jsonBody(`{"object":"list","data":[{"id":"m","object":"model","created":0,"owned_by":"organization-owner"}]}`),
	}}
}
