package scrape

import (
	"math"
	"strconv"
)

// GPUStat is one GPU over a scraper's samples of DCGM's series: mean utilization (%) and
// power (W), and the most memory used (MiB); nil where the exporter served none. It has
// analysis.GPUStat's fields, so the runner converts one to the other.
type GPUStat struct {
	Exporter      string
	GPU           string
	Scrapes       int
	MeanUtilPct   *float64
	MeanPowerW    *float64
	MaxMemUsedMiB *float64
}

// gpuAcc sums one GPU's readings for its GPUStat.
type gpuAcc struct {
	n, nUtil, nPower, nMem int
	util, power, maxMem    float64
}

// add counts one reading, each figure only where it is not NaN.
func (a *gpuAcc) add(g GPUSample) {
	a.n++
	if !math.IsNaN(g.UtilPct) {
		a.util += g.UtilPct
		a.nUtil++
	}
	if !math.IsNaN(g.PowerW) {
		a.power += g.PowerW
		a.nPower++
	}
	if !math.IsNaN(g.MemUsedMiB) {
		a.maxMem = max(a.maxMem, g.MemUsedMiB)
		a.nMem++
	}
}

// GPUStats are one GPU exporter's GPUs over what its scraper saw, in the order they first
// appeared.
func GPUStats(res Result) []GPUStat {
	by := map[string]*gpuAcc{}
	var order []string
	for _, smp := range res.Samples {
		for _, g := range GPUs(smp.Values) {
			a := by[g.GPU]
			if a == nil {
				a = &gpuAcc{maxMem: math.Inf(-1)}
				by[g.GPU] = a
				order = append(order, g.GPU)
			}
			a.add(g)
		}
	}
	out := make([]GPUStat, 0, len(order))
	for _, gpu := range order {
		a := by[gpu]
		st := GPUStat{Exporter: res.URL, GPU: gpu, Scrapes: a.n, MeanUtilPct: mean(a.util, a.nUtil), MeanPowerW: mean(a.power, a.nPower)}
		if a.nMem > 0 {
			v := a.maxMem
			st.MaxMemUsedMiB = &v
		}
		out = append(out, st)
	}
	return out
}

// mean is sum/n to three decimals, nil for no values.
func mean(sum float64, n int) *float64 {
	if n == 0 {
		return nil
	}
	v := math.Round(sum/float64(n)*1000) / 1000
	return &v
}

// EnergyPerOutputToken is the GPUs of several exporters' scrapers together (each exporter's
// GPU 0 its own GPU) over a run's output tokens, in joules to six decimals (EnergyPerToken).
func EnergyPerOutputToken(exporters []Result, outputTokens int64) (float64, error) {
	power := map[string][]PowerPoint{}
	for i, res := range exporters {
		for gpu, pts := range PowerSeries(res.Samples) {
			power[strconv.Itoa(i)+"/"+gpu] = pts // two exporters' GPU 0 are two GPUs
		}
	}
	j, err := EnergyPerToken(power, outputTokens)
	if err != nil {
		return 0, err
	}
	return math.Round(j*1e6) / 1e6, nil
}
