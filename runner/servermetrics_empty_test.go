package runner

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/engine"
	"github.com/llm-replay/replay/scrape"
)

// scrapeSummary detects the engine behind srv, scrapes the page the run would scrape three
// times, and returns the summary's server_metrics.
func scrapeSummary(t *testing.T, srv *httptest.Server, engineFlag string) *analysis.ServerMetrics {
	t.Helper()
	ch, err := engine.Choose(context.Background(), srv.Client(), srv.URL+"/v1", engineFlag, false, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	s := &engineState{choice: ch, base: srv.URL + "/v1", stderr: io.Discard}
	u, err := s.metricsURL("")
	if err != nil {
		t.Fatal(err)
	}
	scr, err := scrape.Start(context.Background(), scrape.Config{URL: u, Interval: 20 * time.Millisecond, Names: s.names(), Client: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	m := analysis.NewMetrics(analysis.Options{Speed: 1})
	return m.Summary(analysis.RunInfo{ServerCache: serverCache(scr.Stop())}).ServerMetrics
}

// TestTritonTRTLLMScrapedWhereFound: Triton's TensorRT-LLM backend serving the page its
// README prints at /metrics is scraped there and gives samples (it was scraped at
// trtllm-serve's /prometheus/metrics, a 404, and the summary said nothing); a page that holds
// none of the engine's series (Triton's own nv_inference_ series only, as the same README
// lists them for a server without the backend's) gives none, and server_metrics says so.
func TestTritonTRTLLMScrapedWhereFound(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "scrape", "testdata", "triton-trtllm-readme.prom"))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(page) })
	triton := httptest.NewServer(mux)
	defer triton.Close()
	sm := scrapeSummary(t, triton, "auto")
	if sm == nil || sm.Samples == 0 || sm.Note != "" || sm.URL != triton.URL+"/metrics" || sm.Failures != 0 {
		t.Fatalf("Triton TRT-LLM at /metrics: server_metrics %+v, want samples from %s/metrics", sm, triton.URL)
	}

	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		_, _ = io.WriteString(w, "# TYPE nv_inference_pending_request_count gauge\nnv_inference_pending_request_count{model=\"tensorrt_llm\",version=\"1\"} 0\n")
	}))
	defer bare.Close()
	sm = scrapeSummary(t, bare, "generic")
	if sm == nil || sm.Samples != 0 || sm.Scrapes < 2 || !strings.Contains(sm.Note, "no samples at "+bare.URL+"/metrics") {
		t.Fatalf("a page without known series: server_metrics %+v, want a note of no samples", sm)
	}
	// --engine trtllm, not detected: trtllm-serve's page, absent here; every scrape fails.
	sm = scrapeSummary(t, bare, "trtllm")
	if sm == nil || sm.Samples != 0 || sm.Scrapes != 0 || !strings.Contains(sm.Note, "all ") || !strings.Contains(sm.Note, "/prometheus/metrics") {
		t.Fatalf("a missing page: server_metrics %+v, want a note that every scrape failed", sm)
	}
}

// TestRunSaysMetricsPageEmpty: a whole run against an engine whose /metrics answers, all
// run long, with none of its engine's series (a page of the process's own only) ends with
// summary.json's server_metrics saying there were no samples at that URL, and the terminal
// table printing it on one line.
func TestRunSaysMetricsPageEmpty(t *testing.T) {
	f := vllmEngine(true, false)
	f.routes["GET /metrics"] = func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 1.5\n")
	}
	url := serveFake(t, f)
	var stdout lockedBuffer
	sum, out, stderr := engineRun(t, url, 6, func(c *Config) { c.Stdout = &stdout })
	sm := sum.ServerMetrics
	if sm == nil || sm.Samples != 0 || sm.Scrapes < 2 || !strings.Contains(sm.Note, "no samples at "+url+"/metrics") {
		t.Fatalf("server_metrics %+v\n%s", sm, stderr)
	}
	if !strings.Contains(readFile(t, filepath.Join(out, "summary.json")), `"server_metrics": {`) {
		t.Error("summary.json has no server_metrics")
	}
	if !strings.Contains(stdout.String(), "\nserver      no samples at "+url+"/metrics") {
		t.Errorf("the table does not say the page gave nothing:\n%s", stdout.String())
	}
}
