package report

import (
	"fmt"

	"github.com/llm-replay/replay/analysis"
	"gonum.org/v1/plot/plotter"
)

// reportFigure is one plot of report.html: drawn when it has something to show, else said in
// one line (empty names what is missing), so the page never shows an empty chart.
type reportFigure struct {
	id, title, caption string
	empty              string
	draw               func() (string, error)
}

// windowLines are the run's per-window series, one line of a time plot each.
type windowLines struct {
	per                                          string // "per second", or the windows' width
	p50, p95, sched, sent, done, errs, tok, infl plotter.XYs
	anyTokens                                    bool
}

func newWindowLines(m *analysis.Metrics) windowLines {
	width, ws := m.Windows()
	var l windowLines
	l.per = "per second"
	if width > 1 {
		l.per = fmt.Sprintf("per second, %d s windows", width)
	}
	for i, w := range ws {
		x := ws[i].StartS + float64(width)/2
		if w.TTFTCount > 0 {
			l.p50 = append(l.p50, plotter.XY{X: x, Y: w.TTFTP50MS})
			l.p95 = append(l.p95, plotter.XY{X: x, Y: w.TTFTP95MS})
		}
		l.sched = append(l.sched, plotter.XY{X: x, Y: w.ScheduledRate})
		l.sent = append(l.sent, plotter.XY{X: x, Y: w.SendRate})
		l.done = append(l.done, plotter.XY{X: x, Y: w.CompletionRate})
		l.errs = append(l.errs, plotter.XY{X: x, Y: w.ErrorRate})
		l.tok = append(l.tok, plotter.XY{X: x, Y: w.OutputTokS})
		l.infl = append(l.infl, plotter.XY{X: x, Y: w.InFlight})
		l.anyTokens = l.anyTokens || w.OutputTokS > 0
	}
	return l
}

// emptyIf is why a figure is not drawn when cond holds, "" otherwise.
func emptyIf(cond bool, why string) string {
	if cond {
		return why
	}
	return ""
}

// noPoints reports whether none of lines has a point to draw.
func noPoints(lines []namedLine) bool {
	for _, l := range lines {
		if len(l.xys) > 0 {
			return false
		}
	}
	return true
}

// reportFigures are report.html's plots in page order, each with what makes it empty.
func reportFigures(m *analysis.Metrics, s *analysis.Summary) []reportFigure {
	l := newWindowLines(m)
	ttft, itl := m.TTFTHistogram(), m.ITLHistogram()
	inflightCaption, inflightName := "Mean number of requests between send and end, "+l.per+".", "in flight"
	serverLines := serverQueueLines(m)
	if serverLines != nil {
		inflightName = "in flight (client)"
		inflightCaption += " Beside it the endpoint's own count of running and waiting requests from its /metrics (server_metrics.jsonl's requests_running and requests_waiting, whichever of the engine's series filled them), as scraped during the run."
	}
	var failed int64
	for _, n := range s.Errors {
		failed += n
	}
	return []reportFigure{
		{"ttft-hist", "TTFT distribution", "Time to first token from the moment the request left; markers at p50, p95, p99.",
			emptyIf(ttft.Count() == 0, "no TTFT, no streamed request succeeded"),
			func() (string, error) { return histogramPlot("TTFT", ttft) }},
		{"itl-hist", "ITL distribution", "Gaps between consecutive streamed chunks of successful requests.",
			emptyIf(itl.Count() == 0, "no inter-token gaps, no successful streamed answer came in two chunks or more"),
			func() (string, error) { return histogramPlot("inter-token latency", itl) }},
		{"latency-time", "Latency over time", "TTFT p50 and p95 of the requests sent in each window (" + l.per + ").",
			emptyIf(len(l.p50) == 0, "no TTFT to follow over time, no streamed request succeeded"),
			func() (string, error) {
				return timePlot("TTFT over time", "milliseconds", []namedLine{{"TTFT p50", Green, false, l.p50}, {"TTFT p95", Orange, false, l.p95}})
			}},
		{"throughput-time", "Throughput over time", "Requests " + l.per + ": the trace's arrival rate (scheduled sends, dashed) against what was sent, completed and failed.",
			emptyIf(len(l.sent) == 0, "no request was sent"),
			func() (string, error) {
				return timePlot("requests per second", "requests / s", []namedLine{
					{"sent", Blue, false, l.sent}, {"completed", Green, false, l.done}, {"failed", Red, false, l.errs},
					// Drawn last and dashed so it stays visible where sends track it exactly.
					{"trace arrival rate (scheduled)", Gray, true, l.sched}})
			}},
		{"tokens-time", "Output tokens over time", "Output tokens " + l.per + ", at the time their chunks arrived.",
			emptyIf(!l.anyTokens, "no output tokens arrived"),
			func() (string, error) {
				return timePlot("output tokens per second", "tokens / s", []namedLine{{"output tokens", Purple, false, l.tok}})
			}},
		{"inflight-time", "In-flight requests over time", inflightCaption,
			emptyIf(noPoints(append([]namedLine{{xys: l.infl}}, serverLines...)), "no request was in flight"),
			func() (string, error) {
				return timePlot("requests in flight", "requests", append([]namedLine{{inflightName, Blue, false, l.infl}}, serverLines...))
			}},
		{"errors", "Errors by class", "Failed requests by error class.",
			emptyIf(failed == 0, "no errors"),
			func() (string, error) { return errorPlot(s.Errors) }},
	}
}

// reportPlots renders every plot of report.html in page order, the GPUs' after the in-flight
// requests, beside the endpoint's own series; a plot with nothing to draw is a line instead.
func reportPlots(m *analysis.Metrics, s *analysis.Summary) ([]Figure, error) {
	var figs []Figure
	for _, f := range reportFigures(m, s) {
		fig := Figure{ID: f.id, Title: f.title, Caption: f.caption, Empty: f.empty}
		if f.empty == "" {
			svg, err := f.draw()
			if err != nil {
				return nil, err
			}
			fig.SVG = svg
		}
		figs = append(figs, fig)
		if f.id == "inflight-time" {
			gpus, err := gpuFigures(m)
			if err != nil {
				return nil, err
			}
			figs = append(figs, gpus...)
		}
	}
	return figs, nil
}
