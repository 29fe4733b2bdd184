package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// finding is what one probe saw: a line of evidence, votes for engines (3 for a sign only
// that engine gives, less for a hint) and versions it read, by the engine they would be of.
type finding struct {
	evidence string
	votes    map[Engine]int
	versions map[Engine]string
	// metricsPath is the path a Prometheus page carrying the voted engine's names was read
	// at, "" when the probe read none: where that engine's series are, whatever its own server
	// would serve them at (Triton serves TensorRT-LLM's nv_trt_llm_ families at /metrics,
	// trtllm-serve its trtllm_ ones at /prometheus/metrics).
	metricsPath string
}

// probe asks one question of the server at root.
type probe func(ctx context.Context, c *http.Client, root string) finding

// probes run in this order of evidence.
var probes = []probe{
	probeModels, probeVersion, probeHealth, probeMetrics, probeTGIInfo,
	probeOllamaVersion, probeOllamaRoot, probeProps, probeSGLangInfo,
}

const smallBody = 1 << 20

// ownedBy maps /v1/models' owned_by to the engine that writes it, with the sources:
//   - vLLM: vllm/entrypoints/openai/protocol.py, ModelCard.owned_by = "vllm"
//   - SGLang: python/sglang/srt/entrypoints/openai/protocol.py, ModelCard.owned_by = "sglang"
//   - TensorRT-LLM: tensorrt_llm/serve/openai_protocol.py, ModelCard.owned_by = "tensorrt_llm"
//   - llama.cpp: tools/server (server-context.cpp), {"owned_by", "llamacpp"}
//   - replay's simulator (sim/server.go) "replay-simulator": it speaks vLLM's dialect
//   - OpenAI: "openai", "system", "openai-internal" for its own models
//   - Ollama: openai/openai.go ToListCompletion writes the model name's namespace, which is
//     "library" for its library's models (types/model/name.go) — a hint, not a proof
//
// TGI (router/src/server.rs openai_get_model_info) writes the model id itself.
var ownedBy = map[string]struct {
	e Engine
	w int
}{
	"vllm": {VLLM, 3}, "sglang": {SGLang, 3}, "tensorrt_llm": {TRTLLM, 3}, "llamacpp": {LlamaCpp, 3},
	"replay-simulator": {VLLM, 2}, "openai": {OpenAI, 2}, "system": {OpenAI, 2}, "openai-internal": {OpenAI, 2},
	"library": {Ollama, 1},
}

// openAIHeaders are response headers only OpenAI's API sends (its API reference, "Debugging
// requests": openai-organization, openai-processing-ms, openai-version).
var openAIHeaders = []string{"Openai-Version", "Openai-Organization", "Openai-Processing-Ms"}

func probeModels(ctx context.Context, c *http.Client, root string) finding {
	r := get(ctx, c, apiRoot(root)+"/models", smallBody)
	f := finding{evidence: "GET /v1/models: " + r.describe(), votes: map[Engine]int{}}
	for _, h := range openAIHeaders {
		if v := r.header.Get(h); v != "" {
			f.votes[OpenAI] = 3
			f.evidence += fmt.Sprintf(", header %s: %s", h, v)
			break
		}
	}
	if s := r.header.Get("Server"); s != "" {
		f.evidence += ", Server: " + s
	}
	if !r.ok() {
		return f
	}
	var list struct {
		Data []struct {
			ID      string `json:"id"`
			OwnedBy string `json:"owned_by"`
		} `json:"data"`
	}
	if err := json.Unmarshal(r.body, &list); err != nil || len(list.Data) == 0 {
		f.evidence += ", no model list: " + snippet(r.body)
		return f
	}
	m := list.Data[0]
	f.evidence += fmt.Sprintf(", model %q owned_by %q", m.ID, m.OwnedBy)
	if o, ok := ownedBy[m.OwnedBy]; ok {
		f.votes[o.e] = max(f.votes[o.e], o.w)
	} else if m.OwnedBy != "" && m.OwnedBy == m.ID {
		f.votes[TGI] = 1 // TGI names the model as its own owner; so may others
	}
	return f
}

// probeVersion reads /version, {"version": "..."}: vLLM's (vllm/entrypoints/openai/api_server.py)
// and trtllm-serve's (tensorrt_llm/serve/openai_server.py) alike, so it names a version but
// votes for neither.
func probeVersion(ctx context.Context, c *http.Client, root string) finding {
	r := get(ctx, c, root+"/version", smallBody)
	f := finding{evidence: "GET /version: " + r.describe()}
	var v struct {
		Version string `json:"version"`
	}
	if r.ok() && json.Unmarshal(r.body, &v) == nil && v.Version != "" {
		f.evidence += fmt.Sprintf(", version %q", v.Version)
		f.versions = map[Engine]string{VLLM: v.Version, TRTLLM: v.Version}
	}
	return f
}

// probeHealth reads /health: 200 with an empty body on vLLM, SGLang, TGI and trtllm-serve;
// {"status":"ok"} on llama.cpp (tools/server/README.md, GET /health), a weak hint.
func probeHealth(ctx context.Context, c *http.Client, root string) finding {
	r := get(ctx, c, root+"/health", smallBody)
	f := finding{evidence: "GET /health: " + r.describe()}
	if !r.ok() {
		return f
	}
	var h struct {
		Status string `json:"status"`
	}
	if json.Unmarshal(r.body, &h) == nil && h.Status == "ok" {
		f.evidence += `, {"status":"ok"}`
		f.votes = map[Engine]int{LlamaCpp: 1}
	}
	return f
}

// metricPrefixes are the engines' metric-name prefixes: vLLM "vllm:" (docs, Production
// Metrics), SGLang "sglang:" (python/sglang/srt/metrics/collector.py), TGI "tgi_"
// (router/src/server.rs), llama.cpp "llamacpp:" (tools/server/README.md), TensorRT-LLM
// "trtllm_" (tensorrt_llm/metrics/collector.py; served at /prometheus/metrics). Then the
// same engines served by others: Ray Serve's vLLM, "ray_vllm_" (vllm/v1/metrics/ray_wrappers.py
// at vllm-project/vllm 63c2b7abcd705edb754604f83ac72a4269c05a52 turns the colon into an
// underscore) or "ray_vllm:" before that; Dynamo's TensorRT-LLM workers "trtllm:"; Triton's
// TensorRT-LLM backend "nv_trt_llm_" (inflight_batcher_llm/src/custom_metrics_reporter/
// custom_metrics_reporter.cc at triton-inference-server/tensorrtllm_backend
// 27e4bfbd3acb05b9b41417d5256553592a31b505). Each is read by that engine's table.
var metricPrefixes = []struct {
	prefix string
	e      Engine
}{
	{"vllm:", VLLM}, {"sglang:", SGLang}, {"tgi_", TGI}, {"llamacpp:", LlamaCpp}, {"trtllm_", TRTLLM},
	{"ray_vllm_", VLLM}, {"ray_vllm:", VLLM}, {"trtllm:", TRTLLM}, {"nv_trt_llm_", TRTLLM},
}

// trtllmUnprefixed is the label trtllm-serve set on its series while it named them without a
// prefix (e2e_request_latency_seconds, ...: tensorrt_llm/metrics/collector.py at
// NVIDIA/TensorRT-LLM 89fd9b74ab7ae753b4c6b3db25a400dca7ea54a0; the labels
// {"model_name": ..., "engine_type": "trtllm"} come from its openai_server.py).
const trtllmUnprefixed = `engine_type="trtllm"`

const metricsBody = 16 << 20

func probeMetrics(ctx context.Context, c *http.Client, root string) finding {
	r := get(ctx, c, root+"/metrics", metricsBody)
	f := finding{evidence: "GET /metrics: " + r.describe()}
	if !r.ok() {
		return f
	}
	if iterationStats(r.body) {
		f.evidence += ", JSON iteration stats (trtllm-serve's /metrics; its Prometheus page is /prometheus/metrics)"
		f.votes = map[Engine]int{TRTLLM: 3}
		return f
	}
	counts := prefixCounts(r.body)
	best, n := Engine(""), 0
	for _, p := range metricPrefixes {
		if counts[p.e] > n {
			best, n = p.e, counts[p.e]
		}
	}
	if best == "" {
		f.evidence += ", no engine's metric names"
		return f
	}
	f.evidence += fmt.Sprintf(", %d %s metric names", n, prefixOf(best))
	f.votes = map[Engine]int{best: 3}
	f.metricsPath = "/metrics"
	return f
}

// iterationStats recognizes trtllm-serve's /metrics: a JSON array of iteration statistics
// (tensorrt_llm/serve/openai_server.py get_iteration_stats; fields such as iter,
// numActiveRequests, kvCacheStats), possibly empty before the first iteration.
func iterationStats(body []byte) bool {
	b := bytes.TrimSpace(body)
	if len(b) == 0 || b[0] != '[' {
		return false
	}
	var stats []map[string]json.RawMessage
	if json.Unmarshal(b, &stats) != nil {
		return false
	}
	for _, s := range stats {
		_, iter := s["iter"]
		_, active := s["numActiveRequests"]
		if !iter && !active {
			return false
		}
	}
	return true
}

// prefixCounts counts the distinct metric names of each engine's prefix on a text page.
func prefixCounts(body []byte) map[Engine]int {
	seen := map[string]bool{}
	counts := map[Engine]int{}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		name, _, _ := strings.Cut(line, "{")
		name, _, _ = strings.Cut(name, " ")
		if seen[name] {
			continue
		}
		seen[name] = true
		for _, p := range metricPrefixes {
			if strings.HasPrefix(name, p.prefix) {
				counts[p.e]++
			}
		}
		if strings.Contains(line, trtllmUnprefixed) && !strings.HasPrefix(name, "trtllm") {
			counts[TRTLLM]++
		}
	}
	return counts
}

func prefixOf(e Engine) string {
	for _, p := range metricPrefixes {
		if p.e == e {
			return p.prefix
		}
	}
	return ""
}

// probeTGIInfo reads TGI's /info (router/src/lib.rs, struct Info): router
// "text-generation-router" and the version.
func probeTGIInfo(ctx context.Context, c *http.Client, root string) finding {
	r := get(ctx, c, root+"/info", smallBody)
	f := finding{evidence: "GET /info: " + r.describe()}
	var info struct {
		Router  string `json:"router"`
		Version string `json:"version"`
		ModelID string `json:"model_id"`
	}
	if r.ok() && json.Unmarshal(r.body, &info) == nil && info.Router == "text-generation-router" {
		f.evidence += fmt.Sprintf(", router %q version %q model %q", info.Router, info.Version, info.ModelID)
		f.votes = map[Engine]int{TGI: 3}
		f.versions = map[Engine]string{TGI: info.Version}
	}
	return f
}

// probeOllamaVersion reads Ollama's /api/version, {"version": "..."} (server/routes.go).
func probeOllamaVersion(ctx context.Context, c *http.Client, root string) finding {
	r := get(ctx, c, root+"/api/version", smallBody)
	f := finding{evidence: "GET /api/version: " + r.describe()}
	var v struct {
		Version string `json:"version"`
	}
	if r.ok() && json.Unmarshal(r.body, &v) == nil && v.Version != "" {
		f.evidence += fmt.Sprintf(", version %q", v.Version)
		f.votes = map[Engine]int{Ollama: 2}
		f.versions = map[Engine]string{Ollama: v.Version}
	}
	return f
}

// probeOllamaRoot reads GET /, which Ollama answers "Ollama is running" (server/routes.go).
func probeOllamaRoot(ctx context.Context, c *http.Client, root string) finding {
	r := get(ctx, c, root+"/", 4096)
	f := finding{evidence: "GET /: " + r.describe()}
	if r.ok() && strings.TrimSpace(string(r.body)) == "Ollama is running" {
		f.evidence += `, "Ollama is running"`
		f.votes = map[Engine]int{Ollama: 3}
	}
	return f
}

// probeProps reads llama.cpp's /props (tools/server/README.md, GET /props), whose build_info
// ("b6000-1a2b3c4d") is its version.
func probeProps(ctx context.Context, c *http.Client, root string) finding {
	r := get(ctx, c, root+"/props", smallBody)
	f := finding{evidence: "GET /props: " + r.describe()}
	var p struct {
		BuildInfo string `json:"build_info"`
	}
	if r.ok() && json.Unmarshal(r.body, &p) == nil && p.BuildInfo != "" {
		f.evidence += fmt.Sprintf(", build_info %q", p.BuildInfo)
		f.votes = map[Engine]int{LlamaCpp: 2}
		f.versions = map[Engine]string{LlamaCpp: p.BuildInfo}
	}
	return f
}

// probeSGLangInfo reads SGLang's server info: its server arguments with the version
// (python/sglang/srt/entrypoints/http_server.py, /get_server_info; /server_info in newer
// releases, which deprecate the first).
func probeSGLangInfo(ctx context.Context, c *http.Client, root string) finding {
	var r reply
	var path string
	for _, path = range []string{"/get_server_info", "/server_info"} {
		if r = get(ctx, c, root+path, 4*smallBody); r.status != http.StatusNotFound {
			break
		}
	}
	f := finding{evidence: "GET " + path + ": " + r.describe()}
	var info map[string]json.RawMessage
	if !r.ok() || json.Unmarshal(r.body, &info) != nil {
		return f
	}
	var version string
	_, hasModel := info["model_path"]
	if json.Unmarshal(info["version"], &version) == nil && version != "" && hasModel {
		f.evidence += fmt.Sprintf(", version %q with server arguments", version)
		f.votes = map[Engine]int{SGLang: 2}
		f.versions = map[Engine]string{SGLang: version}
	}
	return f
}
