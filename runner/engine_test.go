package runner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/engine"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/sim"
	"github.com/llm-replay/replay/trace"
)

// Loopback engines for the run's engine wiring, their shapes as engine/fakes_test.go has them
// (which cites the sources), with completions that answer as the engine would:
//   - vLLM's /v1/completions stream (vllm/entrypoints/openai/protocol.py, CompletionStreamResponse:
//     choices[].text and finish_reason; a last chunk with empty choices and usage under
//     stream_options.include_usage, as OpenAI's API reference documents it), running to
//     max_tokens under ignore_eos (and to min_tokens), else stopping after a few tokens.
//   - Ollama's OpenAI layer (openai/openai.go), whose max_tokens only caps: it stops early.

// stopEarly is how many tokens an answer that stops on its own has.
const stopEarly = 3

// engineFake is one engine's routes; it logs, in order, what the run did to it.
type engineFake struct {
	// honour runs an answer to max_tokens under ignore_eos (and to min_tokens).
	honour bool
	routes map[string]http.HandlerFunc

	mu      sync.Mutex
	events  []string                  // "probe", "warmup", "request", "reset"
	bodies  map[string]map[string]any // completion bodies by X-Request-Id ("" is the probe)
	metrics int                       // GET /metrics
	models  int                       // GET /v1/models
}

func (f *engineFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	switch r.URL.Path {
	case "/metrics":
		f.metrics++
	case "/v1/models":
		f.models++
	}
	f.mu.Unlock()
	h, ok := f.routes[r.Method+" "+r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h(w, r)
}

func (f *engineFake) log(event string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, event)
}

func (f *engineFake) seen() (events []string, bodies map[string]map[string]any, metrics, models int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.events), f.bodies, f.metrics, f.models
}

// complete answers /v1/completions, streamed or not.
func (f *engineFake) complete(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var req struct {
		MaxTokens int  `json:"max_tokens"`
		MinTokens int  `json:"min_tokens"`
		IgnoreEOS bool `json:"ignore_eos"`
		Stream    bool `json:"stream"`
	}
	var body map[string]any
	if json.Unmarshal(b, &req) != nil || json.Unmarshal(b, &body) != nil {
		http.Error(w, `{"error":{"message":"bad body"}}`, http.StatusBadRequest)
		return
	}
	id := r.Header.Get("X-Request-Id")
	if id == engine.RouteProbeID { // the preflight's empty request, refused as engines refuse it
		http.Error(w, `{"error":{"message":"prompt: missing"}}`, http.StatusBadRequest)
		return
	}
	event := "request"
	switch {
	case id == "":
		event = "probe"
	case strings.HasPrefix(id, "warmup-"):
		event = "warmup"
	}
	f.mu.Lock()
	f.events = append(f.events, event)
	f.bodies[id] = body
	f.mu.Unlock()
	n := min(stopEarly, req.MaxTokens)
	if f.honour {
		if req.IgnoreEOS {
			n = req.MaxTokens
		}
		n = max(n, min(req.MinTokens, req.MaxTokens))
	}
	finish := "stop"
	if n == req.MaxTokens {
		finish = "length"
	}
	usage := fmt.Sprintf(`"usage":{"prompt_tokens":64,"completion_tokens":%d,"total_tokens":%d}`, n, 64+n)
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"cmpl-1","object":"text_completion","created":0,"model":"m","choices":[{"index":0,"text":%q,"finish_reason":%q}],%s}`,
			strings.Repeat(" ok", n), finish, usage)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	for range n {
		fmt.Fprint(w, `data: {"id":"cmpl-1","object":"text_completion","created":0,"model":"m","choices":[{"index":0,"text":" ok","finish_reason":null}]}`+"\n\n")
		if fl != nil {
			fl.Flush()
		}
	}
	fmt.Fprintf(w, `data: {"id":"cmpl-1","object":"text_completion","created":0,"model":"m","choices":[{"index":0,"text":"","finish_reason":%q}]}`+"\n\n", finish)
	fmt.Fprintf(w, `data: {"id":"cmpl-1","object":"text_completion","created":0,"model":"m","choices":[],%s}`+"\n\n", usage)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func fakeJSON(v string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, v)
	}
}

// vllmEngine is vLLM 0.11 (engine/fakes_test.go's vllmFake): owned_by "vllm", /version,
// /health, /metrics with the v1 names whose prefix-cache counters grow at every scrape, and
// POST /reset_prefix_cache when devMode (VLLM_SERVER_DEV_MODE=1).
func vllmEngine(honour, devMode bool) *engineFake {
	f := &engineFake{honour: honour, bodies: map[string]map[string]any{}}
	var scrapes int
	var mu sync.Mutex
	f.routes = map[string]http.HandlerFunc{
		"GET /v1/models": fakeJSON(`{"object":"list","data":[{"id":"m","object":"model","created":1735000000,"owned_by":"vllm","root":"m","parent":null,"max_model_len":8192}]}`),
		"GET /version":   fakeJSON(`{"version":"0.11.0"}`),
		"GET /health":    func(w http.ResponseWriter, r *http.Request) {},
		"GET /metrics": func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			scrapes++
			n := scrapes
			mu.Unlock()
			w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
			fmt.Fprintf(w, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine=\"0\",model_name=\"m\"} 1.0\n"+
				"# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{engine=\"0\",model_name=\"m\"} 0.0\n"+
				"# TYPE vllm:kv_cache_usage_perc gauge\nvllm:kv_cache_usage_perc{engine=\"0\",model_name=\"m\"} 0.25\n"+
				"# TYPE vllm:prefix_cache_queries_total counter\nvllm:prefix_cache_queries_total{engine=\"0\",model_name=\"m\"} %d.0\n"+
				"# TYPE vllm:prefix_cache_hits_total counter\nvllm:prefix_cache_hits_total{engine=\"0\",model_name=\"m\"} %d.0\n", 100*n, 50*n)
		},
		"POST /v1/completions": f.complete,
	}
	if devMode {
		f.routes["POST /reset_prefix_cache"] = func(w http.ResponseWriter, r *http.Request) { f.log("reset") }
	}
	return f
}

// ollamaEngine is Ollama 0.17 (engine/fakes_test.go's ollamaFake): "Ollama is running" at /,
// /api/version, owned_by "library", no /health, no /metrics, and answers that stop on their
// own whatever the body says.
func ollamaEngine() *engineFake {
	f := &engineFake{bodies: map[string]map[string]any{}}
	f.routes = map[string]http.HandlerFunc{
		"GET /": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			fmt.Fprint(w, "Ollama is running")
		},
		"GET /api/version":     fakeJSON(`{"version":"0.17.4"}`),
		"GET /v1/models":       fakeJSON(`{"object":"list","data":[{"id":"m","object":"model","created":1735000000,"owned_by":"library"}]}`),
		"POST /v1/completions": f.complete,
	}
	return f
}

// dcgmExporterPage is the DCGM exporter's page (scrape/gpu_test.go's, from
// NVIDIA/dcgm-exporter etc/default-counters.csv and its label order): two GPUs at constant
// power, utilization and memory.
const dcgmExporterPage = `# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).
# TYPE DCGM_FI_DEV_SM_CLOCK gauge
DCGM_FI_DEV_SM_CLOCK{gpu="0", UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52",pci_bus_id="00000000:07:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 1980
DCGM_FI_DEV_SM_CLOCK{gpu="1", UUID="GPU-7b1c0e55-0a57-4c2c-9b0e-2f6d3a9c1e11",pci_bus_id="00000000:0F:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 1755
# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{gpu="0", UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52",pci_bus_id="00000000:07:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 300
DCGM_FI_DEV_POWER_USAGE{gpu="1", UUID="GPU-7b1c0e55-0a57-4c2c-9b0e-2f6d3a9c1e11",pci_bus_id="00000000:0F:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 100
# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).
# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="0", UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52",pci_bus_id="00000000:07:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 97
DCGM_FI_DEV_GPU_UTIL{gpu="1", UUID="GPU-7b1c0e55-0a57-4c2c-9b0e-2f6d3a9c1e11",pci_bus_id="00000000:0F:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 64
# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).
# TYPE DCGM_FI_DEV_FB_USED gauge
DCGM_FI_DEV_FB_USED{gpu="0", UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52",pci_bus_id="00000000:07:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 74213
DCGM_FI_DEV_FB_USED{gpu="1", UUID="GPU-7b1c0e55-0a57-4c2c-9b0e-2f6d3a9c1e11",pci_bus_id="00000000:0F:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 70001
`

// lockedBuffer is a run's stderr, written from several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// engineRun replays n requests of 8 output tokens against url with cfg's engine settings.
func engineRun(t *testing.T, url string, n int, edit func(*Config)) (*analysis.Summary, string, string) {
	t.Helper()
	var stderr lockedBuffer
	cfg := Config{Trace: writeSoakTrace(t, n, 40), Client: client.Config{BaseURL: url + "/v1", Model: "m"}, Tokenizer: testenv.SampleTokenizer(),
		Out: t.TempDir(), MetricsInterval: 20 * time.Millisecond, MaxLateness: -1, MinExact: anyLengths, Stderr: &stderr, Stdout: io.Discard}
	if edit != nil {
		edit(&cfg)
	}
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	return sum, cfg.Out, stderr.String()
}

func serveFake(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lineIndex is the place of the first stderr line holding s, -1 for none.
func lineIndex(stderr, s string) int {
	for i, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, s) {
			return i
		}
	}
	return -1
}

// Against vLLM: detected with its version, ignore_eos added to every request beside the user's
// own fields, the probe first, the warmup before the prefix-cache reset and the measured
// requests after it, and its metrics scraped with vLLM's names.
func TestEngineVLLM(t *testing.T) {
	f := vllmEngine(true, true)
	url := serveFake(t, f)
	sum, out, stderr := engineRun(t, url, 6, func(c *Config) {
		c.Warmup, c.ResetCache = 2, true
		c.Client.ExtraBody = map[string]any{"top_k": 7}
	})
	if !strings.Contains(stderr, "replay: engine: vllm 0.11.0 (") || !strings.Contains(stderr, "replay: prefix cache reset (POST "+url+"/reset_prefix_cache)") {
		t.Errorf("stderr does not name the engine or the reset:\n%s", stderr)
	}
	if strings.Contains(stderr, "warning") {
		t.Errorf("a warning against a vLLM that forces:\n%s", stderr)
	}
	events, bodies, _, _ := f.seen()
	want := []string{"probe", "warmup", "warmup", "reset", "request", "request", "request", "request", "request", "request"}
	if !slices.Equal(events, want) {
		t.Errorf("events %v, want %v", events, want)
	}
	if p := bodies[""]; p["ignore_eos"] != true || p["min_tokens"] != float64(engine.ForcingProbeTokens) || p["max_tokens"] != float64(engine.ForcingProbeTokens) {
		t.Errorf("probe body %v", p)
	}
	for id, b := range bodies {
		if id != "" && (b["ignore_eos"] != true || b["top_k"] != float64(7) || b["min_tokens"] != nil) {
			t.Errorf("request %s: body %v, want ignore_eos and the user's top_k", id, b)
		}
	}
	e := sum.Run.Engine
	if e == nil || e.Name != "vllm" || e.Version != "0.11.0" || !e.Forced || e.Forcing != "forced" || e.CacheReset != "reset" ||
		e.ForceFields["ignore_eos"] != true || !strings.HasPrefix(e.Probe, "output length forced") || len(e.Evidence) == 0 {
		t.Fatalf("engine block %+v", e)
	}
	if p := sum.Fidelity.OutputTokensExactPct; p == nil || *p != 100 {
		t.Errorf("output exactness %v, want 100%%", p)
	}
	sc := sum.Cache.Server
	if sc == nil || sc.Scrapes < 2 || sc.QueriedTokens == nil || *sc.QueriedTokens <= 0 || sc.HitTokens == nil {
		t.Errorf("server cache %+v: the vLLM names were not scraped", sc)
	}
	if _, err := os.Stat(filepath.Join(out, runfolder.ServerMetrics)); err != nil {
		t.Error(err)
	}
	// summary.json keeps the block under run.engine, and the report's Run table shows it.
	var raw struct {
		Run struct {
			Engine map[string]any `json:"engine"`
		} `json:"run"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(out, "summary.json"))), &raw); err != nil || raw.Run.Engine["cache_reset"] != "reset" {
		t.Errorf("summary.json run.engine %v (%v)", raw.Run.Engine, err)
	}
	if rep := readFile(t, filepath.Join(out, runfolder.Report)); !strings.Contains(rep, "<td>engine</td><td>vllm 0.11.0; output forced to its targets; prefix cache reset</td>") {
		t.Error("report.html has no engine row")
	}
}

// A server that takes ignore_eos and ignores it: the probe finds out, the run warns before it
// sends anything, and the summary and the report say the output was not forceable. A vLLM
// without dev mode cannot be reset, and says why.
func TestEngineIgnoresIgnoreEOS(t *testing.T) {
	f := vllmEngine(false, false)
	url := serveFake(t, f)
	sum, out, stderr := engineRun(t, url, 4, func(c *Config) { c.ResetCache = true })
	warn := lineIndex(stderr, "replay: warning: forcing does not work on this endpoint")
	start := lineIndex(stderr, "replay: open-loop replay of")
	if warn < 0 || start < 0 || warn > start {
		t.Errorf("no warning before the run starts (warning at line %d, start at %d):\n%s", warn, start, stderr)
	}
	if events, _, _, _ := f.seen(); len(events) == 0 || events[0] != "probe" || slices.Contains(events[1:], "probe") {
		t.Errorf("events %v: want the probe first and once", events)
	}
	e := sum.Run.Engine
	if e == nil || e.Forced || !strings.HasPrefix(e.Forcing, "not forceable on this engine: forcing does not work") {
		t.Fatalf("engine block %+v", e)
	}
	if !strings.HasPrefix(e.CacheReset, "not reset: vLLM serves /reset_prefix_cache only when started with VLLM_SERVER_DEV_MODE=1") ||
		!strings.Contains(stderr, "replay: warning: prefix cache not reset") {
		t.Errorf("cache reset %q; stderr:\n%s", e.CacheReset, stderr)
	}
	rep := readFile(t, filepath.Join(out, runfolder.Report))
	if !strings.Contains(rep, "<td>output length forcing</td><td class=\"bad\">not forceable on this engine: forcing does not work") ||
		!strings.Contains(rep, `<span class="bad">not forced</span>`) {
		t.Error("report.html does not say the output was not forceable")
	}
}

// Ollama: detected, no forcing field sent and no probe (it has none), no metrics scraped and
// the run says why, and no warning beyond that.
func TestEngineOllama(t *testing.T) {
	f := ollamaEngine()
	url := serveFake(t, f)
	sum, out, stderr := engineRun(t, url, 4, nil)
	if !strings.Contains(stderr, "replay: engine: ollama 0.17.4 (") {
		t.Errorf("stderr does not name Ollama:\n%s", stderr)
	}
	if !strings.Contains(stderr, "replay: server metrics: Ollama serves no Prometheus metrics; not scraped") || strings.Contains(stderr, "warning") {
		t.Errorf("want the metrics note and no warning:\n%s", stderr)
	}
	events, bodies, metrics, _ := f.seen()
	if slices.Contains(events, "probe") {
		t.Errorf("events %v: a forcing probe against an engine without forcing", events)
	}
	for id, b := range bodies {
		if _, ok := b["ignore_eos"]; ok {
			t.Errorf("request %s sent ignore_eos to Ollama", id)
		}
	}
	if metrics != 1 { // detection's GET /metrics, no scrape
		t.Errorf("%d GET /metrics, want detection's one", metrics)
	}
	if _, err := os.Stat(filepath.Join(out, runfolder.ServerMetrics)); !os.IsNotExist(err) {
		t.Errorf("%s: %v, want none", runfolder.ServerMetrics, err)
	}
	e := sum.Run.Engine
	if e == nil || e.Name != "ollama" || e.Version != "0.17.4" || e.Forced || e.CacheReset != "left warm" ||
		e.Forcing != "not forceable on this engine: "+engine.Ollama.ForceNote() || sum.Cache.Server != nil {
		t.Fatalf("engine block %+v, server cache %+v", e, sum.Cache.Server)
	}
	if rep := readFile(t, filepath.Join(out, runfolder.Report)); !strings.Contains(rep, "not forceable on this engine") {
		t.Error("report.html does not say the output was not forceable")
	}
}

// --engine names the engine: nothing is detected.
func TestEngineNamed(t *testing.T) {
	f := vllmEngine(true, false)
	url := serveFake(t, f)
	sum, _, stderr := engineRun(t, url, 2, func(c *Config) { c.Engine, c.MetricsURL = "generic", "none" })
	_, bodies, metrics, models := f.seen()
	if models != 1 || metrics != 0 { // the one GET /v1/models is the preflight's (preflight.go)
		t.Errorf("%d GET /v1/models and %d GET /metrics: detected although --engine named it (want the preflight's one GET /v1/models)", models, metrics)
	}
	if e := sum.Run.Engine; e == nil || e.Name != "generic" || !slices.Equal(e.Evidence, []string{"--engine generic"}) || e.Forced {
		t.Fatalf("engine block %+v", e)
	}
	if !strings.Contains(stderr, "replay: engine: generic (--engine; not detected)") {
		t.Errorf("stderr:\n%s", stderr)
	}
	for id, b := range bodies {
		if _, ok := b["ignore_eos"]; ok {
			t.Errorf("request %s: ignore_eos sent to a generic server", id)
		}
	}
	if CheckEngine("vllm") != nil || CheckEngine("llama.cpp") != nil || CheckEngine("bogus") == nil {
		t.Error("CheckEngine")
	}
}

// Under --options logged the engine's forcing field follows the user's rule: only the requests
// whose logged answer ran to its length go with it.
func TestEngineForcingFollowsLoggedOptions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logged.parquet")
	w, err := trace.CreateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	finish := []string{"length", "stop", "length", "stop"}
	for i, fr := range finish {
		rec := trace.Record{Timestamp: time.Duration(i) * 10 * time.Millisecond, PromptTokens: 64, OutputTokens: 8,
			Options: &trace.Options{API: "completions", FinishReason: fr}}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f := vllmEngine(true, false)
	url := serveFake(t, f)
	_, out, _ := engineRun(t, url, 1, func(c *Config) { c.Trace, c.Options = path, OptionsLogged })
	_, bodies, _, _ := f.seen()
	for i, fr := range finish {
		_, forced := bodies[fmt.Sprint(i)]["ignore_eos"]
		if forced != (fr == "length") {
			t.Errorf("request %d logged %q: ignore_eos sent %v", i, fr, forced)
		}
	}
	rows, err := rowfile.ReadAll(filepath.Join(out, "requests.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if want := finish[id(t, r)] != "length"; r.Unforced != want {
			t.Errorf("row %s: unforced %v, want %v", r.RequestID, r.Unforced, want)
		}
	}
}

// The fields the runner adds for an engine are among the client's ForcingKeys, which it
// withholds from requests that must not be forced.
func TestEngineForceFieldsAreForcingKeys(t *testing.T) {
	for _, e := range engine.All() {
		for k := range e.ForceFields(0) {
			if !slices.Contains(client.ForcingKeys, k) {
				t.Errorf("%s forces with %q, not among client.ForcingKeys %v", e, k, client.ForcingKeys)
			}
		}
	}
}

// The default metrics page is where the engine serves it under --endpoint, its path prefix
// kept; trtllm-serve's is /prometheus/metrics; Ollama's is none.
func TestEngineMetricsURL(t *testing.T) {
	for _, c := range []struct {
		e          engine.Engine
		base, flag string
		want       string
	}{
		{engine.VLLM, "http://gw:8080/llm/v1", "", "http://gw:8080/llm/metrics"},
		{engine.TRTLLM, "http://h:8000/v1", "", "http://h:8000/prometheus/metrics"},
		{engine.Ollama, "http://h:11434/v1", "", ""},
		{engine.Ollama, "http://h:11434/v1", "http://other:9090/metrics", "http://other:9090/metrics"},
		{engine.VLLM, "http://h:8000/v1", "none", ""},
	} {
		s := &engineState{choice: engine.Choice{Engine: c.e}, base: c.base, stderr: io.Discard}
		got, err := s.metricsURL(c.flag)
		if err != nil || got != c.want {
			t.Errorf("%s %s --metrics-url %q: %q, %v; want %q", c.e, c.base, c.flag, got, err, c.want)
		}
	}
}

// A DCGM exporter beside the engine (two of them, two GPUs each): its samples go to
// gpu_metrics.jsonl and gpu_metrics-2.jsonl, and the summary has each GPU's figures and the
// energy per output token: 400 W for each exporter's span over the run's 6 x 8 output tokens.
func TestEngineDCGMEnergy(t *testing.T) {
	f := vllmEngine(true, false)
	url := serveFake(t, f)
	page := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		fmt.Fprint(w, dcgmExporterPage)
	}
	dcgm1, dcgm2 := serveFake(t, http.HandlerFunc(page)), serveFake(t, http.HandlerFunc(page))
	sum, out, stderr := engineRun(t, url, 6, func(c *Config) {
		c.MetricsURL, c.GPUMetricsURLs = "none", []string{dcgm1 + "/metrics", dcgm2 + "/metrics"}
	})
	if sum.Throughput.OutputTokens != 48 {
		t.Fatalf("%d output tokens, want 48", sum.Throughput.OutputTokens)
	}
	var joules float64
	for _, name := range []string{runfolder.GPUMetrics, "gpu_metrics-2.jsonl"} {
		offsets := gpuOffsets(t, filepath.Join(out, name))
		if len(offsets) < 2 {
			t.Fatalf("%s: %d samples", name, len(offsets))
		}
		joules += (300 + 100) * (offsets[len(offsets)-1] - offsets[0])
	}
	e := sum.Run.Engine
	if e == nil || e.EnergyJPerOutputToken == nil {
		t.Fatalf("no energy per output token: %+v\n%s", e, stderr)
	}
	if want := joules / 48; math.Abs(*e.EnergyJPerOutputToken-want) > 1e-4*want+1e-5 {
		t.Errorf("energy %v J per output token, want %v", *e.EnergyJPerOutputToken, want)
	}
	if len(e.GPUs) != 4 {
		t.Fatalf("GPUs %+v, want 4", e.GPUs)
	}
	for i, g := range e.GPUs {
		util, power, mem := 97.0, 300.0, 74213.0
		if g.GPU == "1" {
			util, power, mem = 64, 100, 70001
		}
		if g.GPU != fmt.Sprint(i%2) || g.Scrapes < 2 || g.MeanUtilPct == nil || *g.MeanUtilPct != util ||
			g.MeanPowerW == nil || *g.MeanPowerW != power || g.MaxMemUsedMiB == nil || *g.MaxMemUsedMiB != mem {
			t.Errorf("GPU %d: %+v", i, g)
		}
	}
	rep := readFile(t, filepath.Join(out, runfolder.Report))
	if !strings.Contains(rep, `<h2 id="gpus">GPUs</h2>`) || !strings.Contains(rep, "<td>97.0%</td><td>300.0 W</td><td>74213.0 MiB</td>") ||
		!strings.Contains(rep, "Energy per output token") {
		t.Error("report.html has no GPU table or energy")
	}
	if _, err := os.Stat(filepath.Join(out, runfolder.ServerMetrics)); !os.IsNotExist(err) {
		t.Errorf("--metrics-url none still scraped the engine: %v", err)
	}
}

// gpuOffsets are the t_s of a GPU metrics file's lines, each checked to hold the DCGM series.
func gpuOffsets(t *testing.T, path string) []float64 {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []float64
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		var m map[string]float64
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if m[`DCGM_FI_DEV_POWER_USAGE{gpu="0"}`] != 300 || m[`DCGM_FI_DEV_FB_USED{gpu="1"}`] != 70001 {
			t.Fatalf("%s: line %s", path, sc.Text())
		}
		out = append(out, m["t_s"])
	}
	return out
}

// Detection, the probe, the reset and the scrapes of the engine's own page go with the run's
// TLS settings (--ca-file) and its API key, as its requests do: an https vLLM that wants the
// key on every path is detected, forced, reset and scraped.
func TestEngineTLSAndKey(t *testing.T) {
	f := vllmEngine(true, true)
	const key = "sk-engine-test"
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+key {
			http.Error(w, `{"error":{"message":"no key"}}`, http.StatusUnauthorized)
			return
		}
		f.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	pemBlock := "-----BEGIN CERTIFICATE-----\n" + base64Lines(srv.Certificate().Raw) + "-----END CERTIFICATE-----\n"
	if err := os.WriteFile(ca, []byte(pemBlock), 0o600); err != nil {
		t.Fatal(err)
	}
	sum, _, stderr := engineRun(t, srv.URL, 2, func(c *Config) { c.Client.CAFile, c.Client.APIKey, c.ResetCache = ca, key, true })
	if e := sum.Run.Engine; e == nil || e.Name != "vllm" || !e.Forced || e.CacheReset != "reset" {
		t.Fatalf("engine block %+v\n%s", e, stderr)
	}
	if sc := sum.Cache.Server; sc == nil || sc.Scrapes == 0 || sc.Failures != 0 {
		t.Errorf("server cache %+v: the engine's page was not scraped with the run's TLS settings and key", sc)
	}
}

// base64Lines is b in base64, 64 characters a line, as PEM writes it.
func base64Lines(b []byte) string {
	s := base64.StdEncoding.EncodeToString(b)
	var out strings.Builder
	for len(s) > 64 {
		out.WriteString(s[:64] + "\n")
		s = s[64:]
	}
	return out.String() + s + "\n"
}

// replay sim behind --endpoint is known by its owned_by: vLLM's dialect, and, like the
// built-in simulator, not probed (its answers run to max_tokens by construction), so the
// server sees the run's requests and nothing else.
func TestEngineReplaySim(t *testing.T) {
	sc := sim.DefaultConfig()
	sc.ZeroCost = true
	srv := sim.New(sc)
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	var mu sync.Mutex
	var posts []string
	url := serveFake(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("X-Request-Id") != engine.RouteProbeID {
			mu.Lock()
			posts = append(posts, r.Header.Get("X-Request-Id"))
			mu.Unlock()
		}
		srv.ServeHTTP(w, r)
	}))
	sum, _, stderr := engineRun(t, url, 3, func(c *Config) { c.Client.Model = "replay-sim" })
	mu.Lock()
	defer mu.Unlock()
	if slices.Contains(posts, "") || len(posts) != 3 {
		t.Errorf("POSTs %q: want the run's 3 requests only", posts)
	}
	e := sum.Run.Engine
	if e == nil || e.Name != "vllm" || !e.Forced || e.Probe != "" || e.ForceFields != nil ||
		!strings.Contains(stderr, "replay's simulator, vllm-compatible, not probed") {
		t.Fatalf("engine block %+v\n%s", e, stderr)
	}
}
