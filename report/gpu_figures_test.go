package report

import (
	"math"
	"strings"
	"testing"

	"github.com/llm-replay/replay/analysis"
)

// TestGPUFigures: one plot per figure a GPU served, a line per GPU, none without GPU series;
// a figure no GPU served (here the SM clock) has no plot rather than an empty one.
func TestGPUFigures(t *testing.T) {
	m := analysis.NewMetrics(analysis.Options{})
	if figs, err := gpuFigures(m); err != nil || figs != nil {
		t.Fatalf("no series: %v, %v", figs, err)
	}
	nan := math.NaN()
	m.AddGPUPoints([]analysis.GPUPoint{
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
