package engine

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// TestMetricsPagesDetectEachEngine: each engine version's page of package scrape's fixtures
// (written from the sources their first lines cite) is taken for that engine by its names;
// Dynamo's frontend page, whose dynamo_frontend_ names are no engine's, for none.
func TestMetricsPagesDetectEachEngine(t *testing.T) {
	cases := map[string]Engine{
		"vllm-v1.prom": VLLM, "vllm-v0.prom": VLLM, "vllm-early-v1.prom": VLLM,
		"ray-serve-vllm.prom": VLLM, "sglang.prom": SGLang, "trtllm-serve.prom": TRTLLM,
		"trtllm-serve-unprefixed.prom": TRTLLM, "triton-trtllm.prom": TRTLLM, "triton-trtllm-readme.prom": TRTLLM,
		"vllm-v1-3168f58.prom": VLLM, "tgi-db931fc.prom": TGI,
		"dynamo-trtllm-worker.prom": TRTLLM, "dynamo-frontend.prom": "",
	}
	for file, want := range cases {
		body, err := os.ReadFile(filepath.Join("..", "scrape", "testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; version=0.0.4")
			_, _ = w.Write(body)
		}))
		f := probeMetrics(context.Background(), srv.Client(), srv.URL)
		srv.Close()
		if want == "" {
			if len(f.votes) != 0 {
				t.Errorf("%s: votes %v (%s), want none", file, f.votes, f.evidence)
			}
			continue
		}
		if len(f.votes) != 1 || f.votes[want] != 3 {
			t.Errorf("%s: votes %v (%s), want %s's alone", file, f.votes, f.evidence, want)
		}
	}
}
