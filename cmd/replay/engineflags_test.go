package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/runner"
)

// parseRunFlags parses args as replay run's flags (with --out) into its configuration.
func parseRunFlags(t *testing.T, args ...string) (runner.Config, *pflag.FlagSet, error) {
	t.Helper()
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	config := addRunFlags(fs, cli{stdout: io.Discard, stderr: io.Discard})
	if err := fs.Parse(append([]string{"--out", t.TempDir()}, args...)); err != nil {
		return runner.Config{}, fs, err
	}
	cfg, err := config(fs.Args())
	return cfg, fs, err
}

// --engine, --reset-cache and a repeatable --metrics-url: the engine's page first, GPU
// exporters after it.
func TestEngineFlags(t *testing.T) {
	cfg, fs, err := parseRunFlags(t)
	if err != nil || cfg.Engine != "auto" || cfg.ResetCache || cfg.MetricsURL != "" || cfg.GPUMetricsURLs != nil {
		t.Fatalf("defaults: %v, engine %q, reset %v, metrics %q %v", err, cfg.Engine, cfg.ResetCache, cfg.MetricsURL, cfg.GPUMetricsURLs)
	}
	if help := fs.FlagUsages(); strings.Count(help, "      --metrics-url ") != 1 || !strings.Contains(help, "--metrics-url stringArray") ||
		!strings.Contains(help, "--engine string") || !strings.Contains(help, "--reset-cache") {
		t.Errorf("--help:\n%s", help)
	}
	cfg, _, err = parseRunFlags(t, "--engine", "llama.cpp", "--reset-cache", "--metrics-url", "none",
		"--metrics-url", "http://127.0.0.1:9400/metrics", "--metrics-url", "http://127.0.0.1:9401/metrics")
	if err != nil || cfg.Engine != "llama.cpp" || !cfg.ResetCache || cfg.MetricsURL != "none" ||
		strings.Join(cfg.GPUMetricsURLs, " ") != "http://127.0.0.1:9400/metrics http://127.0.0.1:9401/metrics" {
		t.Fatalf("%v, engine %q, reset %v, metrics %q %v", err, cfg.Engine, cfg.ResetCache, cfg.MetricsURL, cfg.GPUMetricsURLs)
	}
	cfg, _, err = parseRunFlags(t, "--metrics-url", "http://h:8000/metrics")
	if err != nil || cfg.MetricsURL != "http://h:8000/metrics" || len(cfg.GPUMetricsURLs) != 0 {
		t.Fatalf("one --metrics-url: %v, %q %v", err, cfg.MetricsURL, cfg.GPUMetricsURLs)
	}
	for _, bad := range [][]string{
		{"--engine", "bogus"},
		{"--metrics-url", "http://h/metrics", "--metrics-url", "none"},
	} {
		if _, _, err := parseRunFlags(t, bad...); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

// The flags end to end through the binary: a loopback vLLM (owned_by "vllm", /version, its
// reset endpoint in dev mode, completions that honour ignore_eos) named by --engine, its
// cache reset, its page not scraped, and a DCGM exporter scraped into gpu_metrics.jsonl.
func TestEngineRunFlags(t *testing.T) {
	bin := replayBin(t)
	var resets, detects atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		detects.Add(1)
		fmt.Fprint(w, `{"object":"list","data":[{"id":"m","object":"model","created":0,"owned_by":"vllm"}]}`)
	})
	mux.HandleFunc("POST /reset_prefix_cache", func(w http.ResponseWriter, r *http.Request) { resets.Add(1) })
	mux.HandleFunc("POST /v1/completions", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			MaxTokens int  `json:"max_tokens"`
			IgnoreEOS bool `json:"ignore_eos"`
			Stream    bool `json:"stream"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		n, finish := min(2, req.MaxTokens), "stop"
		if req.IgnoreEOS {
			n, finish = req.MaxTokens, "length"
		}
		usage := fmt.Sprintf(`"usage":{"prompt_tokens":8,"completion_tokens":%d,"total_tokens":%d}`, n, n+8)
		if !req.Stream {
			fmt.Fprintf(w, `{"id":"c","object":"text_completion","choices":[{"index":0,"text":"ok","finish_reason":%q}],%s}`, finish, usage)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for range n {
			fmt.Fprint(w, `data: {"id":"c","object":"text_completion","choices":[{"index":0,"text":" ok","finish_reason":null}]}`+"\n\n")
		}
		fmt.Fprintf(w, `data: {"id":"c","object":"text_completion","choices":[{"index":0,"text":"","finish_reason":%q}]}`+"\n\n", finish)
		fmt.Fprintf(w, `data: {"id":"c","object":"text_completion","choices":[],%s}`+"\n\ndata: [DONE]\n\n", usage)
	})
	engineSrv := httptest.NewServer(mux)
	defer engineSrv.Close()
	dcgm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprint(w, "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-1\",modelName=\"NVIDIA H100 80GB HBM3\"} 250\n"+
			"# TYPE DCGM_FI_DEV_GPU_UTIL gauge\nDCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-1\",modelName=\"NVIDIA H100 80GB HBM3\"} 80\n")
	}))
	defer dcgm.Close()
	out := t.TempDir()
	cmd := exec.Command(bin, "run", "--trace", writeRateTrace(t, 6, 40, 8), "--endpoint", engineSrv.URL+"/v1", "--model", "m",
		"--tokenizer", testenv.SampleTokenizer(), "--engine", "vllm", "--reset-cache", "--metrics-url", "none",
		"--metrics-url", dcgm.URL+"/metrics", "--metrics-interval", "20ms", "--max-lateness", "0",
		"--min-exact", "0", // the fake engine's usage is fixed: lengths are not what this test judges
		"--out", out)
	stderr, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if detects.Load() != 1 || resets.Load() != 1 { // the one GET /v1/models is the preflight's: --engine skips detection
		t.Errorf("%d GET /v1/models, %d resets; want the preflight's 1 and 1", detects.Load(), resets.Load())
	}
	sum := readRunSummary(t, out)
	e := sum.Run.Engine
	if e == nil || e.Name != "vllm" || !e.Forced || e.CacheReset != "reset" || len(e.GPUs) != 1 || e.EnergyJPerOutputToken == nil {
		t.Fatalf("engine block %+v\n%s", e, stderr)
	}
	if g := e.GPUs[0]; g.MeanPowerW == nil || *g.MeanPowerW != 250 || g.MeanUtilPct == nil || *g.MeanUtilPct != 80 || g.MaxMemUsedMiB != nil {
		t.Errorf("GPU %+v", g)
	}
	if _, err := os.Stat(filepath.Join(out, runfolder.GPUMetrics)); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(out, runfolder.ServerMetrics)); !os.IsNotExist(err) {
		t.Errorf("--metrics-url none: %s %v", runfolder.ServerMetrics, err)
	}
}
