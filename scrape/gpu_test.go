package scrape

import (
	"context"
	"fmt"
	"math"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"

	"github.com/llm-replay/replay/results"
)

// dcgmPage is a DCGM exporter page: field names and units from etc/default-counters.csv,
// labels in the order internal/pkg/rendermetrics/render_metrics.go writes them (gpu, UUID,
// pci_bus_id, device, modelName, Hostname), and a space after the first comma as in the
// README's example output. Two GPUs, "%v" their power draws.
const dcgmPage = `# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).
# TYPE DCGM_FI_DEV_SM_CLOCK gauge
DCGM_FI_DEV_SM_CLOCK{gpu="0", UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52",pci_bus_id="00000000:07:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 1980
DCGM_FI_DEV_SM_CLOCK{gpu="1", UUID="GPU-7b1c0e55-0a57-4c2c-9b0e-2f6d3a9c1e11",pci_bus_id="00000000:0F:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 1755
# HELP DCGM_FI_DEV_MEM_CLOCK Memory clock frequency (in MHz).
# TYPE DCGM_FI_DEV_MEM_CLOCK gauge
DCGM_FI_DEV_MEM_CLOCK{gpu="0", UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52",pci_bus_id="00000000:07:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 2619
# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{gpu="0", UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52",pci_bus_id="00000000:07:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} %v
DCGM_FI_DEV_POWER_USAGE{gpu="1", UUID="GPU-7b1c0e55-0a57-4c2c-9b0e-2f6d3a9c1e11",pci_bus_id="00000000:0F:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} %v
# HELP DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION Total energy consumption since boot (in mJ).
# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter
DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="0", UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52",pci_bus_id="00000000:07:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 123456789
# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %%).
# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="0", UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52",pci_bus_id="00000000:07:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 97
DCGM_FI_DEV_GPU_UTIL{gpu="1", UUID="GPU-7b1c0e55-0a57-4c2c-9b0e-2f6d3a9c1e11",pci_bus_id="00000000:0F:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 64
# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).
# TYPE DCGM_FI_DEV_FB_USED gauge
DCGM_FI_DEV_FB_USED{gpu="0", UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52",pci_bus_id="00000000:07:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 74213
DCGM_FI_DEV_FB_USED{gpu="1", UUID="GPU-7b1c0e55-0a57-4c2c-9b0e-2f6d3a9c1e11",pci_bus_id="00000000:0F:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 70001
`

func TestParseDCGM(t *testing.T) {
	gpus, err := ParseDCGM(strings.NewReader(fmt.Sprintf(dcgmPage, 312.5, 288)), expfmt.FmtText)
	if err != nil {
		t.Fatal(err)
	}
	if len(gpus) != 2 {
		t.Fatalf("%d GPUs: %+v", len(gpus), gpus)
	}
	g0, g1 := gpus[0], gpus[1]
	if g0.GPU != "0" || g0.UtilPct != 97 || g0.MemUsedMiB != 74213 || g0.PowerW != 312.5 || g0.SMClockMHz != 1980 || g0.EnergyMJ != 123456789 {
		t.Errorf("GPU 0: %+v", g0)
	}
	if g1.GPU != "1" || g1.UtilPct != 64 || g1.MemUsedMiB != 70001 || g1.PowerW != 288 || g1.SMClockMHz != 1755 || !math.IsNaN(g1.EnergyMJ) {
		t.Errorf("GPU 1 (no energy counter on the page, so NaN): %+v", g1)
	}
}

func TestGPUOrderAndForeignKeys(t *testing.T) {
	vals := map[string]float64{
		`DCGM_FI_DEV_POWER_USAGE{gpu="10"}`: 1, `DCGM_FI_DEV_POWER_USAGE{gpu="2"}`: 2,
		results.RequestsRunning: 5, `DCGM_FI_DEV_POWER_USAGE{gpu=bad}`: 3,
	}
	gpus := GPUs(vals)
	if len(gpus) != 2 || gpus[0].GPU != "2" || gpus[1].GPU != "10" {
		t.Fatalf("%+v", gpus)
	}
}

// TestDCGMScraper: a loopback exporter scraped with the DCGM table writes per-GPU keys to its
// own file in the server-metrics line format, and its energy counter's increase is kept per GPU.
func TestDCGMScraper(t *testing.T) {
	ps := &pageServer{}
	ps.set(fmt.Sprintf(dcgmPage, 300, 200))
	srv := httptest.NewServer(ps)
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "gpu_metrics.jsonl")
	s, err := Start(context.Background(), Config{URL: srv.URL + "/metrics", Interval: time.Hour, Path: path, Names: DCGM})
	if err != nil {
		t.Fatal(err)
	}
	ps.set(strings.Replace(fmt.Sprintf(dcgmPage, 310, 190), "} 123456789", "} 123466789", 1)) // +10 J on GPU 0
	res := s.Stop()
	if res.Scrapes != 2 || res.Source != "the DCGM exporter" {
		t.Fatalf("%+v", res)
	}
	if inc := res.Increase[`DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="0"}`]; inc != 10000 {
		t.Fatalf("energy counter increase %v mJ, want 10000 (%v)", inc, res.Increase)
	}
	back, err := results.ReadServerMetrics(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 2 || back[1].Values[`DCGM_FI_DEV_POWER_USAGE{gpu="1"}`] != 190 {
		t.Fatalf("read back %+v", back)
	}
	power := PowerSeries(back)
	if len(power["0"]) != 2 || power["0"][1].Watts != 310 || len(power["1"]) != 2 {
		t.Fatalf("power series %+v", power)
	}
}
