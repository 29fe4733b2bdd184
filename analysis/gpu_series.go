package analysis

import (
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/runfolder"
)

// GPUPoint is one GPU at one scrape of a GPU exporter (the DCGM exporter's series, as the
// runner reads them from its scraper): the time in seconds since the measured run started,
// the GPU's name ("0", or "2/0" for the second exporter's GPU 0) and its figures, NaN where
// the exporter served none.
type GPUPoint struct {
	OffsetS    float64
	GPU        string
	UtilPct    float64
	MemUsedMiB float64
	PowerW     float64
	SMClockMHz float64
}

// AddGPUPoints keeps GPU exporters' series for report.html, which plots each figure over time
// per GPU beside the endpoint's own series.
func (m *Metrics) AddGPUPoints(ps []GPUPoint) {
	for _, p := range ps {
		if isFinite(p.OffsetS) {
			m.gpu = append(m.gpu, p)
		}
	}
}

// The DCGM exporter's names of the series plotted, as a GPU scraper writes them (package
// scrape's DCGM table), each GPU's under its key NAME{gpu="0"}.
const (
	dcgmUtil    = "DCGM_FI_DEV_GPU_UTIL"
	dcgmMemUsed = "DCGM_FI_DEV_FB_USED"
	dcgmPower   = "DCGM_FI_DEV_POWER_USAGE"
	dcgmSMClock = "DCGM_FI_DEV_SM_CLOCK"
)

// AddGPUSamples keeps one GPU exporter's samples (the exporter-th of the run, from 0, whose
// GPUs are named "2/0", "2/1"... from the second on, so two hosts' GPU 0 stay apart), each
// GPU's figures read from its keys NAME{gpu="..."}; keys of other forms are ignored.
func (m *Metrics) AddGPUSamples(exporter int, ss []results.ServerSample) {
	for _, smp := range ss {
		by := map[string]*GPUPoint{}
		var order []string
		for key, v := range smp.Values {
			name, gpu, ok := splitGPUKey(key)
			if !ok {
				continue
			}
			p := by[gpu]
			if p == nil {
				nan := math.NaN()
				p = &GPUPoint{OffsetS: smp.OffsetS, GPU: gpu, UtilPct: nan, MemUsedMiB: nan, PowerW: nan, SMClockMHz: nan}
				if exporter > 0 {
					p.GPU = strconv.Itoa(exporter+1) + "/" + gpu
				}
				by[gpu] = p
				order = append(order, gpu)
			}
			switch name {
			case dcgmUtil:
				p.UtilPct = v
			case dcgmMemUsed:
				p.MemUsedMiB = v
			case dcgmPower:
				p.PowerW = v
			case dcgmSMClock:
				p.SMClockMHz = v
			}
		}
		slices.SortFunc(order, compareGPU)
		for _, g := range order {
			m.AddGPUPoints([]GPUPoint{*by[g]})
		}
	}
}

// splitGPUKey splits NAME{gpu="0"} into its name and GPU.
func splitGPUKey(key string) (name, gpu string, ok bool) {
	name, rest, ok := strings.Cut(key, `{gpu=`)
	if !ok || !strings.HasSuffix(rest, "}") {
		return "", "", false
	}
	gpu, err := strconv.Unquote(strings.TrimSuffix(rest, "}"))
	return name, gpu, err == nil
}

// compareGPU orders device indexes numerically ("10" after "9"), other names after them.
func compareGPU(a, b string) int {
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	switch {
	case errA == nil && errB == nil:
		return x - y
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return strings.Compare(a, b)
}

// addGPUFiles reads dir's GPU exporters' files (runfolder.GPUMetricsGlob, in exporter order), for
// `replay report` to plot what the run scraped; none is no error.
func (m *Metrics) addGPUFiles(dir string) error {
	paths, err := filepath.Glob(filepath.Join(dir, runfolder.GPUMetricsGlob))
	if err != nil {
		return err
	}
	for _, p := range paths {
		i, ok := runfolder.GPUMetricsIndex(filepath.Base(p))
		if !ok {
			continue
		}
		ss, err := results.ReadServerMetrics(p)
		if err != nil {
			return err
		}
		m.AddGPUSamples(i, ss)
	}
	return nil
}

// GPUPoints is the GPU exporters' series kept for report.html, in the order they came.
func (m *Metrics) GPUPoints() []GPUPoint { return m.gpu }
