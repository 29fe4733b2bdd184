package sim

import (
	"context"
	"net/http"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestCacheConfigInfo: /metrics names the KV cache's capacity as vLLM does, in the labels of
// vllm:cache_config_info (value 1), and says nothing is cached without an engine.
func TestCacheConfigInfo(t *testing.T) {
	for _, zero := range []bool{false, true} {
		cfg := fastConfig()
		cfg.NumBlocks, cfg.BlockSize, cfg.ZeroCost = 1234, 32, zero
		url, stop, err := Listen(context.Background(), "127.0.0.1:0", cfg)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.Get(url + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		parser := expfmt.NewTextParser(model.LegacyValidation)
		fams, err := parser.TextToMetricFamilies(resp.Body)
		resp.Body.Close()
		stop()
		if err != nil {
			t.Fatal(err)
		}
		f := fams["vllm:cache_config_info"]
		if f == nil || len(f.GetMetric()) != 1 || f.GetMetric()[0].GetGauge().GetValue() != 1 {
			t.Fatalf("zero cost %v: vllm:cache_config_info %v", zero, f)
		}
		got := map[string]string{}
		for _, l := range f.GetMetric()[0].GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		caching := map[bool]string{false: "True", true: "False"}[zero]
		if got["num_gpu_blocks"] != "1234" || got["block_size"] != "32" || got["enable_prefix_caching"] != caching {
			t.Errorf("zero cost %v: labels %v", zero, got)
		}
	}
}
