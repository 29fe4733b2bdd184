package scrape

import (
	"cmp"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/prometheus/common/expfmt"
)

// The DCGM exporter's names for the GPU series a run keeps, from its default counters
// (NVIDIA/dcgm-exporter etc/default-counters.csv), in the units it serves them.
const (
	GPUUtil     = "DCGM_FI_DEV_GPU_UTIL"                 // gauge, percent
	GPUMemUsed  = "DCGM_FI_DEV_FB_USED"                  // gauge, MiB of framebuffer
	GPUPower    = "DCGM_FI_DEV_POWER_USAGE"              // gauge, W
	GPUSMClock  = "DCGM_FI_DEV_SM_CLOCK"                 // gauge, MHz
	GPUEnergyMJ = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION" // counter, mJ since boot
)

// DCGM reads a DCGM exporter's page (default port 9400, /metrics), one series per GPU by its
// gpu label: keys such as DCGM_FI_DEV_POWER_USAGE{gpu="0"}; DCGM's blank values are dropped
// (dcgmBlank), never integrated as watts. Its samples go to a file of
// their own (the server-metrics line format), since one file has one writer.
var DCGM = Names{Source: "the DCGM exporter", PerLabel: "gpu", Blank: dcgmBlank, Series: []Series{
	{GPUUtil, []string{GPUUtil}, Gauge},
	{GPUMemUsed, []string{GPUMemUsed}, Gauge},
	{GPUPower, []string{GPUPower}, Gauge},
	{GPUSMClock, []string{GPUSMClock}, Gauge},
	{GPUEnergyMJ, []string{GPUEnergyMJ}, Counter},
}}

// GPUSample is one GPU's telemetry at one scrape; a field the page lacked is NaN.
type GPUSample struct {
	// GPU is the exporter's gpu label: the device index on its host ("0", "1", ...).
	GPU        string
	UtilPct    float64
	MemUsedMiB float64
	PowerW     float64
	SMClockMHz float64
	// EnergyMJ is the device's energy counter since boot, in millijoules.
	EnergyMJ float64
}

// GPUs splits one scrape of DCGM's series (a sample's Values) into its GPUs, in device order.
// Keys of other forms are ignored.
func GPUs(values map[string]float64) []GPUSample {
	by := map[string]*GPUSample{}
	for key, v := range values {
		name, gpu, ok := splitGPUKey(key)
		if !ok {
			continue
		}
		g := by[gpu]
		if g == nil {
			nan := math.NaN()
			g = &GPUSample{GPU: gpu, UtilPct: nan, MemUsedMiB: nan, PowerW: nan, SMClockMHz: nan, EnergyMJ: nan}
			by[gpu] = g
		}
		switch name {
		case GPUUtil:
			g.UtilPct = v
		case GPUMemUsed:
			g.MemUsedMiB = v
		case GPUPower:
			g.PowerW = v
		case GPUSMClock:
			g.SMClockMHz = v
		case GPUEnergyMJ:
			g.EnergyMJ = v
		}
	}
	out := make([]GPUSample, 0, len(by))
	for _, g := range by {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b GPUSample) int { return compareGPU(a.GPU, b.GPU) })
	return out
}

// ParseDCGM reads one DCGM exporter page (in the format its Content-Type names) into its GPUs.
func ParseDCGM(r io.Reader, format expfmt.Format) ([]GPUSample, error) {
	vals, _, err := parse(r, format, DCGM)
	if err != nil {
		return nil, err
	}
	return GPUs(vals), nil
}

// splitGPUKey takes NAME{gpu="N"} apart.
func splitGPUKey(key string) (name, gpu string, ok bool) {
	name, rest, ok := strings.Cut(key, `{gpu=`)
	if !ok || !strings.HasSuffix(rest, "}") {
		return "", "", false
	}
	gpu, err := strconv.Unquote(strings.TrimSuffix(rest, "}"))
	if err != nil {
		return "", "", false
	}
	return name, gpu, true
}

// compareGPU orders device indexes numerically (so "10" follows "9"), other labels after
// them by text.
func compareGPU(a, b string) int {
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	switch {
	case errA == nil && errB == nil:
		return cmp.Compare(x, y)
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return strings.Compare(a, b)
}
