package runfolder

import (
	"path/filepath"
	"testing"
)

// TestGPUMetricsNames: each exporter's file name reads back as its index and matches the
// glob the report reads them by; no other name is an exporter's.
func TestGPUMetricsNames(t *testing.T) {
	for i, want := range []string{"gpu_metrics.jsonl", "gpu_metrics-2.jsonl", "gpu_metrics-3.jsonl", "gpu_metrics-12.jsonl"} {
		if i == 3 {
			i = 11
		}
		name := GPUMetricsOf(i)
		if name != want {
			t.Errorf("GPUMetricsOf(%d) = %s, want %s", i, name, want)
		}
		if got, ok := GPUMetricsIndex(name); !ok || got != i {
			t.Errorf("GPUMetricsIndex(%s) = %d, %v", name, got, ok)
		}
		if ok, _ := filepath.Match(GPUMetricsGlob, name); !ok {
			t.Errorf("%s does not match %s", name, GPUMetricsGlob)
		}
	}
	for _, name := range []string{ServerMetrics, "gpu_metrics-1.jsonl", "gpu_metrics-02.jsonl", "gpu_metrics-x.jsonl", "gpu_metrics-2.json", "gpu_metrics-.jsonl", "gpu_metrics.jsonl.tmp"} {
		if i, ok := GPUMetricsIndex(name); ok {
			t.Errorf("GPUMetricsIndex(%s) = %d, an exporter's", name, i)
		}
	}
}
