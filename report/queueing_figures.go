package report

import (
	"fmt"
	"math"

	"github.com/llm-replay/replay/analysis"
	"gonum.org/v1/plot/plotter"
)

// appendQueueingFigures adds the split's plot to a report's figures when the run had a
// calibration: mean predicted TTFT and mean queueing of the requests sent in each window.
func appendQueueingFigures(m *analysis.Metrics, figs []Figure) ([]Figure, error) {
	qp := m.QueueingPlot()
	if qp == nil {
		return figs, nil
	}
	var last int64
	for _, r := range qp.Requests {
		last = max(last, r.SentNS)
	}
	width := max(1, int64(math.Ceil(float64(last)/1e9/120))) // at most ~120 windows
	type acc struct{ n, pred, q float64 }
	bins := make([]acc, last/1e9/width+1)
	for _, r := range qp.Requests {
		i := max(0, r.SentNS) / 1e9 / width
		bins[i].n++
		bins[i].pred += r.PredictedMS
		bins[i].q += r.QueueingMS
	}
	var pred, queue plotter.XYs
	for i, b := range bins {
		if b.n == 0 {
			continue
		}
		x := float64(int64(i)*width) + float64(width)/2
		pred = append(pred, plotter.XY{X: x, Y: b.pred / b.n})
		queue = append(queue, plotter.XY{X: x, Y: b.q / b.n})
	}
	svg, err := timePlot("TTFT: prefill and queueing over time", "milliseconds", []namedLine{
		{"predicted TTFT alone (calibration)", Blue, false, pred}, {"queueing (TTFT - predicted)", Orange, false, queue}})
	if err != nil {
		return nil, err
	}
	caption := fmt.Sprintf("Mean over the requests sent in each %d s window: the TTFT the calibration predicts for one request alone with its uncached prompt tokens (%s), and the rest of its TTFT, queueing. Mean queueing share over the run: %.1f%%.",
		width, qp.TTFTModel, qp.SharePct)
	figs = append(figs, Figure{ID: "queueing-time", Title: "Prefill and queueing over time", Caption: caption, SVG: svg})
	t := qp.TPOT
	if t == nil || len(t.ByBatch) == 0 {
		return figs, nil
	}
	var meas, alone plotter.XYs
	for _, b := range t.ByBatch {
		meas = append(meas, plotter.XY{X: float64(b.RunningMax), Y: b.MeanTPOTMS})
		alone = append(alone, plotter.XY{X: float64(b.RunningMax), Y: b.MeanPredictedMS})
	}
	svg, err = levelLines("TPOT against the engine's batch size", "requests running in the engine (its /metrics, mean over each decode; buckets up to)", "milliseconds",
		[]Line{{"measured TPOT", Purple, meas}, {"predicted TPOT alone (calibration)", Blue, alone}})
	if err != nil {
		return nil, err
	}
	return append(figs, Figure{ID: "tpot-batch", Title: "TPOT against batch size", Caption: fmt.Sprintf("Mean TPOT of the requests by the engine's running requests during their decode, against what the calibration predicts for one request alone at the same contexts: overall %.2fx.", t.SlowdownX), SVG: svg}), nil
}

// levelLines draws series with points against a plain x axis.
func levelLines(title, xlabel, ylabel string, lines []Line) (string, error) {
	p := NewPlot(title, xlabel, ylabel)
	p.Legend.Left = true
	top := 0.0
	for _, l := range lines {
		ln, pts, err := plotter.NewLinePoints(l.XYs)
		if err != nil {
			return "", fmt.Errorf("plot %q line %q: %w", title, l.Name, err)
		}
		ln.LineStyle = LineStyle(l.Color, 1.5, false)
		pts.Color = l.Color
		p.Add(ln, pts)
		p.Legend.Add(l.Name, ln, pts)
		for _, xy := range l.XYs {
			top = math.Max(top, xy.Y)
		}
	}
	p.Y.Min, p.Y.Max = 0, math.Max(top*1.2, 1e-3)
	return SVG(p)
}
