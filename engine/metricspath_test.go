package engine

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMetricsURLWhereNamesWereFound: Triton with the TensorRT-LLM backend serves its
// nv_trt_llm_ families at /metrics (the page tensorrtllm_backend's README prints, written
// from it as scrape/testdata/triton-trtllm-readme.prom); detection takes it for TensorRT-LLM
// by those names and the run must scrape /metrics, where they are, not trtllm-serve's
// /prometheus/metrics (404 on Triton). trtllm-serve itself, whose /metrics is JSON iteration
// stats, is still scraped at /prometheus/metrics.
func TestMetricsURLWhereNamesWereFound(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "scrape", "testdata", "triton-trtllm-readme.prom"))
	if err != nil {
		t.Fatal(err)
	}
	triton := serve(t, &fake{routes: map[string]http.HandlerFunc{"GET /metrics": text(string(page))}})
	ch, err := Choose(context.Background(), triton.Client(), triton.URL+"/v1", "auto", false, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Engine != TRTLLM || ch.MetricsPath != "/metrics" {
		t.Fatalf("Triton's page: engine %s, metrics path %q; want trtllm at /metrics (%v)", ch.Engine, ch.MetricsPath, ch.Evidence)
	}
	u, err := ch.MetricsURL(triton.URL + "/v1")
	if err != nil || u != triton.URL+"/metrics" {
		t.Fatalf("Triton's metrics URL %q, %v; want %s/metrics", u, err, triton.URL)
	}
	resp, err := triton.Client().Get(u)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "nv_trt_llm_request_metrics") {
		t.Errorf("GET %s: HTTP %d without the families detection saw", u, resp.StatusCode)
	}

	serveTRT := serve(t, trtllmFake())
	ch, err = Choose(context.Background(), serveTRT.Client(), serveTRT.URL+"/v1", "auto", false, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if u, err := ch.MetricsURL(serveTRT.URL + "/v1"); ch.Engine != TRTLLM || err != nil || u != serveTRT.URL+"/prometheus/metrics" {
		t.Errorf("trtllm-serve: engine %s, metrics URL %q, %v; want its /prometheus/metrics", ch.Engine, u, err)
	}
	if u, _ := (Choice{Engine: TRTLLM}).MetricsURL("http://h:8000/v1"); u != "http://h:8000/prometheus/metrics" {
		t.Errorf("--engine trtllm, not detected: %q, want the engine's default page", u)
	}
}
