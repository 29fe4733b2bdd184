package scrape

import (
	"math"
	"testing"

	"github.com/llm-replay/replay/results"
)

// dcgmSample is one scrape of GPU gpu's utilization, power and memory at offset s.
func dcgmSample(s float64, gpu string, util, watts, mib float64) results.ServerSample {
	return results.ServerSample{OffsetS: s, Values: map[string]float64{
		GPUUtil + `{gpu="` + gpu + `"}`: util, GPUPower + `{gpu="` + gpu + `"}`: watts, GPUMemUsed + `{gpu="` + gpu + `"}`: mib}}
}

// TestGPUStats: each GPU's mean utilization and power and its peak memory, in the order the
// GPUs first appeared.
func TestGPUStats(t *testing.T) {
	res := Result{URL: "http://127.0.0.1:9400/metrics", Samples: []results.ServerSample{
		dcgmSample(0, "1", 10, 100, 500), dcgmSample(0, "0", 50, 200, 1000), dcgmSample(1, "1", 20, 300, 700),
	}}
	st := GPUStats(res)
	if len(st) != 2 || st[0].GPU != "1" || st[1].GPU != "0" {
		t.Fatalf("%+v", st)
	}
	if g := st[0]; g.Scrapes != 2 || *g.MeanUtilPct != 15 || *g.MeanPowerW != 200 || *g.MaxMemUsedMiB != 700 || g.Exporter != res.URL {
		t.Errorf("GPU 1: %+v", g)
	}
	if st := GPUStats(Result{Samples: []results.ServerSample{dcgmSample(0, "0", math.NaN(), math.NaN(), math.NaN())}}); st[0].MeanUtilPct != nil || st[0].MaxMemUsedMiB != nil {
		t.Errorf("NaN readings: %+v", st[0])
	}
}

// TestEnergyPerOutputToken: two exporters' GPU 0 are two GPUs, their energy summed: 100 W
// and 300 W for 2 s over 100 tokens is 8 J a token.
func TestEnergyPerOutputToken(t *testing.T) {
	a := Result{Samples: []results.ServerSample{dcgmSample(0, "0", 0, 100, 0), dcgmSample(2, "0", 0, 100, 0)}}
	b := Result{Samples: []results.ServerSample{dcgmSample(0, "0", 0, 300, 0), dcgmSample(2, "0", 0, 300, 0)}}
	if j, err := EnergyPerOutputToken([]Result{a, b}, 100); err != nil || j != 8 {
		t.Fatalf("%v J, %v", j, err)
	}
	if _, err := EnergyPerOutputToken([]Result{a}, 0); err == nil {
		t.Fatal("no tokens, an energy per token")
	}
}
