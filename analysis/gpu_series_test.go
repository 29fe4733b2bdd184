package analysis

import (
	"math"
	"strings"
	"testing"

	"github.com/llm-replay/replay/results"
)

// TestGPUFigures: one plot per figure a GPU served, a line per GPU, none without GPU series;
// a figure no GPU served (here the SM clock) has no plot rather than an empty one.
func TestGPUFigures(t *testing.T) {
	m := NewMetrics(Options{})
	if figs, err := gpuFigures(m); err != nil || figs != nil {
		t.Fatalf("no series: %v, %v", figs, err)
	}
	nan := math.NaN()
	m.AddGPUPoints([]GPUPoint{
		{OffsetS: 0, GPU: "0", UtilPct: 10, MemUsedMiB: 100, PowerW: 200, SMClockMHz: nan},
		{OffsetS: 1, GPU: "0", UtilPct: 90, MemUsedMiB: 120, PowerW: 350, SMClockMHz: nan},
		{OffsetS: 0.5, GPU: "2/0", UtilPct: 50, MemUsedMiB: nan, PowerW: 150, SMClockMHz: nan},
		{OffsetS: nan, GPU: "9", UtilPct: 1, PowerW: 1, MemUsedMiB: 1, SMClockMHz: 1}, // no time: dropped
	})
	figs, err := gpuFigures(m)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range figs {
		ids = append(ids, f.ID)
	}
	if strings.Join(ids, ",") != "gpu-util,gpu-memory,gpu-power" {
		t.Fatalf("figures %v", ids)
	}
	for _, f := range figs {
		if !strings.Contains(f.SVG, ">GPU 0<") || strings.Contains(f.SVG, ">GPU 9<") {
			t.Errorf("%s: lines wrong", f.ID)
		}
	}
	if !strings.Contains(figs[0].SVG, ">GPU 2/0<") || !strings.Contains(figs[2].SVG, ">GPU 2/0<") {
		t.Error("the second exporter's GPU has no line in utilization or power")
	}
}

// TestAddGPUSamples: a scraper's keys NAME{gpu="N"} become one point per GPU and scrape, in
// device order ("10" after "9"), named by exporter from the second on; other keys are ignored
// and a figure the page lacked is NaN.
func TestAddGPUSamples(t *testing.T) {
	m := NewMetrics(Options{})
	m.AddGPUSamples(1, []results.ServerSample{{OffsetS: 2.5, Values: map[string]float64{
		`DCGM_FI_DEV_POWER_USAGE{gpu="10"}`: 110, `DCGM_FI_DEV_POWER_USAGE{gpu="9"}`: 90, `DCGM_FI_DEV_GPU_UTIL{gpu="9"}`: 45,
		`DCGM_FI_DEV_SM_CLOCK{gpu="9"}`: 1800, `DCGM_FI_DEV_FB_USED{gpu="9"}`: 1024, "vllm:num_requests_running": 3, `x{gpu=9}`: 1,
	}}})
	if len(m.gpu) != 2 {
		t.Fatalf("points %+v", m.gpu)
	}
	a, b := m.gpu[0], m.gpu[1]
	if a.GPU != "2/9" || a.OffsetS != 2.5 || a.PowerW != 90 || a.UtilPct != 45 || a.SMClockMHz != 1800 || a.MemUsedMiB != 1024 {
		t.Errorf("GPU 9: %+v", a)
	}
	if b.GPU != "2/10" || b.PowerW != 110 || !math.IsNaN(b.UtilPct) || !math.IsNaN(b.MemUsedMiB) {
		t.Errorf("GPU 10: %+v", b)
	}
}
