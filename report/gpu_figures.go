package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"github.com/llm-replay/replay/analysis"
	"gonum.org/v1/plot/plotter"
)

// gpuPalette colours GPUs in turn.
var gpuPalette = []color.Color{Blue, Orange, Green, Red, Purple, Gray}

// gpuFigures are report.html's GPU plots, one per figure with a line per GPU; none without
// GPU series, and none for a figure no GPU served.
func gpuFigures(m *analysis.Metrics) ([]Figure, error) {
	if len(m.GPUPoints()) == 0 {
		return nil, nil
	}
	var gpus []string
	for _, p := range m.GPUPoints() {
		if !slices.Contains(gpus, p.GPU) {
			gpus = append(gpus, p.GPU)
		}
	}
	specs := []struct {
		id, title, ylabel, caption string
		v                          func(analysis.GPUPoint) float64
	}{
		{"gpu-util", "GPU utilization", "percent", "Each GPU's utilization (DCGM_FI_DEV_GPU_UTIL) as its exporter served it at every scrape of the measured run.",
			func(p analysis.GPUPoint) float64 { return p.UtilPct }},
		{"gpu-memory", "GPU memory used", "MiB", "Each GPU's framebuffer memory in use (DCGM_FI_DEV_FB_USED).",
			func(p analysis.GPUPoint) float64 { return p.MemUsedMiB }},
		{"gpu-power", "GPU power", "watts", "Each GPU's power draw (DCGM_FI_DEV_POWER_USAGE), whose integral over the run gives the energy per output token.",
			func(p analysis.GPUPoint) float64 { return p.PowerW }},
		{"gpu-sm-clock", "GPU SM clock", "MHz", "Each GPU's SM clock (DCGM_FI_DEV_SM_CLOCK): a clock that falls under load is throttling (power or heat).",
			func(p analysis.GPUPoint) float64 { return p.SMClockMHz }},
	}
	var figs []Figure
	for _, sp := range specs {
		lines := make([]namedLine, len(gpus))
		drew := false
		for i, g := range gpus {
			lines[i] = namedLine{name: "GPU " + g, c: gpuPalette[i%len(gpuPalette)]}
			for _, p := range m.GPUPoints() {
				if v := sp.v(p); p.GPU == g && !math.IsNaN(v) {
					lines[i].xys = append(lines[i].xys, plotter.XY{X: p.OffsetS, Y: v})
				}
			}
			drew = drew || len(lines[i].xys) > 0
		}
		if !drew {
			continue
		}
		svg, err := timePlot(sp.title+" per GPU", sp.ylabel, lines)
		if err != nil {
			return nil, fmt.Errorf("GPU plot %s: %w", sp.id, err)
		}
		figs = append(figs, Figure{ID: sp.id, Title: sp.title, Caption: sp.caption, SVG: svg})
	}
	return figs, nil
}
