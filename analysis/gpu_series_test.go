package analysis

import (
	"math"
	"testing"

	"github.com/llm-replay/replay/results"
)

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
