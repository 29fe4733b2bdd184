package sweep

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/report"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// ConcurrencyLevel is one level of a concurrency sweep as the page shows it.
type ConcurrencyLevel struct {
	Concurrency int
	Dir         string
	Summary     *analysis.Summary
	Holds       bool
	// Why names the limits the level broke.
	Why string
}

// ConcurrencyPage is a whole concurrency sweep: the SLO, the percentile its limits are held at,
// the TTFT limit drawn on the plot (0 when the SLO has none), the knee (0 if no level held),
// its cost when priced, and the levels in increasing concurrency.
type ConcurrencyPage struct {
	SLO         string
	Percentile  string
	TTFTLimitMS float64
	Knee        int
	KneeCost    *KneeCost
	Levels      []ConcurrencyLevel
}

// pct picks the page's percentile of a distribution.
func (cp ConcurrencyPage) pct(d analysis.Dist) float64 {
	switch cp.Percentile {
	case "p90":
		return d.P90
	case "p99":
		return d.P99
	}
	return d.P95
}

// WriteConcurrencyHTML writes a concurrency sweep's sweep.html: TTFT and throughput against
// concurrency on two axes with the SLO line and the knee, then e2e and TPOT, requests per second
// and the TTFT percentiles against concurrency, and a table row per level. Self-contained.
func WriteConcurrencyHTML(w io.Writer, cp ConcurrencyPage, o report.Options) error {
	for i, l := range cp.Levels {
		if l.Summary == nil {
			return fmt.Errorf("sweep level %d (concurrency %d) has no summary", i, l.Concurrency)
		}
	}
	figs, err := concurrencyPlots(cp)
	if err != nil {
		return err
	}
	page := concurrencyPageData{P: cp, Figures: figs}
	for _, l := range cp.Levels {
		page.Rows = append(page.Rows, concurrencyRow{L: l, TTFT: cp.pct(l.Summary.TTFT), E2E: cp.pct(l.Summary.E2E), TPOT: cp.pct(l.Summary.TPOT)})
	}
	if page.FontCSS, err = report.PageFont(o.NoEmbedFont); err != nil {
		return err
	}
	return report.WritePage(w, concurrencyTmpl, page, "sweep report")
}

type concurrencyRow struct {
	L               ConcurrencyLevel
	TTFT, E2E, TPOT float64
}

type concurrencyPageData struct {
	P       ConcurrencyPage
	Rows    []concurrencyRow
	Figures []report.Figure
	FontCSS template.CSS
}

// concurrencyTicks labels a log2 x axis at the levels tried.
func concurrencyTicks(levels []ConcurrencyLevel) plot.Ticker {
	return plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		var ticks []plot.Tick
		for _, l := range levels {
			ticks = append(ticks, plot.Tick{Value: float64(l.Concurrency), Label: strconv.Itoa(l.Concurrency)})
		}
		return ticks
	})
}

// levelPlot draws series against concurrency on a log2 axis with the knee marked.
func levelPlot(cp ConcurrencyPage, title, ylabel string, lines []report.Line) (string, error) {
	p := report.NewPlot(title, "requests in flight (closed loop)", ylabel)
	p.Legend.Left = true
	hi := 0.0
	for _, l := range lines {
		for _, xy := range l.XYs {
			hi = math.Max(hi, xy.Y)
		}
	}
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = concurrencyTicks(cp.Levels)
	first, last := float64(cp.Levels[0].Concurrency), float64(cp.Levels[len(cp.Levels)-1].Concurrency)
	p.X.Min, p.X.Max = first/1.2, last*1.2
	p.Y.Min, p.Y.Max = 0, math.Max(hi*1.15, 1e-3)
	for _, l := range lines {
		ln, pts, err := plotter.NewLinePoints(l.XYs)
		if err != nil {
			return "", fmt.Errorf("plot %q line %q: %w", title, l.Name, err)
		}
		ln.LineStyle = report.LineStyle(l.Color, 1.8, false)
		pts.Color = l.Color
		p.Add(ln, pts)
		p.Legend.Add(l.Name, ln, pts)
	}
	if cp.Knee > 0 {
		ln, err := plotter.NewLine(plotter.XYs{{X: float64(cp.Knee), Y: 0}, {X: float64(cp.Knee), Y: p.Y.Max}})
		if err != nil {
			return "", err
		}
		ln.LineStyle = report.LineStyle(report.Gray, 1.5, true)
		p.Add(ln)
		p.Legend.Add(fmt.Sprintf("knee %d", cp.Knee), ln)
	}
	return report.SVG(p)
}

func concurrencyPlots(cp ConcurrencyPage) ([]report.Figure, error) {
	if len(cp.Levels) == 0 {
		return nil, nil
	}
	var two []twoAxisPoint
	var e2e, tpot, reqs, p50, p95, p99 plotter.XYs
	for _, l := range cp.Levels {
		s, x := l.Summary, float64(l.Concurrency)
		two = append(two, twoAxisPoint{X: l.Concurrency, LatencyMS: cp.pct(s.TTFT), Throughput: s.Throughput.OutputTokS})
		e2e = append(e2e, plotter.XY{X: x, Y: cp.pct(s.E2E)})
		tpot = append(tpot, plotter.XY{X: x, Y: cp.pct(s.TPOT)})
		reqs = append(reqs, plotter.XY{X: x, Y: s.Throughput.ReqS})
		p50 = append(p50, plotter.XY{X: x, Y: s.TTFT.P50})
		p95 = append(p95, plotter.XY{X: x, Y: s.TTFT.P95})
		p99 = append(p99, plotter.XY{X: x, Y: s.TTFT.P99})
	}
	figs := []report.Figure{{ID: "knee", Title: "TTFT and throughput against concurrency",
		Caption: fmt.Sprintf("Left axis: TTFT %s from each request's send; right axis: output tokens per second over each level's measured span. Dashed red: the SLO's TTFT limit; dashed gray: the knee, the largest level that held %s.", cp.Percentile, cp.SLO),
		SVG:     twoAxisSVG("TTFT "+cp.Percentile+" and throughput against concurrency", "TTFT "+cp.Percentile+" (ms)", "output tokens / s", two, cp.TTFTLimitMS, cp.Knee)}}
	specs := []struct {
		id, title, caption, ylabel string
		lines                      []report.Line
	}{
		{"e2e", "e2e and TPOT against concurrency", "End-to-end latency and time per output token at the page's percentile, from send.", "milliseconds",
			[]report.Line{{Name: "e2e " + cp.Percentile, Color: report.Blue, XYs: e2e}, {Name: "TPOT " + cp.Percentile, Color: report.Green, XYs: tpot}}},
		{"requests", "Completed requests against concurrency", "Successful requests per second over each level's measured span.", "requests / s",
			[]report.Line{{Name: "completed requests / s", Color: report.Green, XYs: reqs}}},
		{"ttft", "TTFT percentiles against concurrency", "TTFT p50, p95 and p99 from send: the spread widens as requests start to wait for a batch slot.", "milliseconds",
			[]report.Line{{Name: "p50", Color: report.Light, XYs: p50}, {Name: "p95", Color: report.Orange, XYs: p95}, {Name: "p99", Color: report.Red, XYs: p99}}},
	}
	for _, s := range specs {
		svg, err := levelPlot(cp, s.title, s.ylabel, s.lines)
		if err != nil {
			return nil, err
		}
		figs = append(figs, report.Figure{ID: s.id, Title: s.title, Caption: s.caption, SVG: svg})
	}
	return figs, nil
}

var concurrencyTmpl = template.Must(template.New("csweep").Funcs(report.PageFuncs).Parse(concurrencyHTML))

var concurrencyHTML = report.PageHead(`replay sweep --concurrency · {{.P.SLO}}`) + `th:first-child,td:first-child{text-align:left}
th{background:#f4f6f8;font-weight:bold}
.note{color:#555;font-size:13px;margin:2px 0 8px}
.verdict{font-size:16px;margin:10px 0}
.bad{color:#b00}
</style>
</head>
<body>
<h1>replay sweep --concurrency</h1>
<p class="note">The trace replayed closed loop at each level: that many requests in flight, the next one (in trace order, with the trace's lengths and prefixes) sent as soon as one returns, after a warm-up. A level holds when every limit of {{.P.SLO}} holds at {{.P.Percentile}}, latencies from each request's send. The sweep stops at the first level that does not hold unless --all.</p>
<p class="verdict" id="verdict">{{if .P.Knee}}<b>Knee: concurrency {{.P.Knee}}</b> is the largest level tried that held {{.P.SLO}} at {{.P.Percentile}}.{{with .P.KneeCost}} Cost at the knee: <b>${{f2 .PerMOutputTokens}} per million output tokens</b> ({{.GPUs}} GPU(s) at ${{f2 .PerGPUHour}}/h, {{f1 .OutputTokS}} output tokens/s).{{end}}{{else}}<b class="bad">No level tried held {{.P.SLO}}</b> at {{.P.Percentile}}.{{end}}</p>

<h2>Levels</h2>
<table>
<tr><th>concurrency</th><th>requests/s</th><th>output tokens/s</th><th>TTFT {{.P.Percentile}} (ms)</th><th>e2e {{.P.Percentile}} (ms)</th><th>TPOT {{.P.Percentile}} (ms)</th><th>failed</th><th>holds</th><th>run</th></tr>
{{range .Rows}}<tr><td>{{.L.Concurrency}}</td><td>{{f2 .L.Summary.Throughput.ReqS}}</td><td>{{f1 .L.Summary.Throughput.OutputTokS}}</td><td>{{ms .TTFT}}</td><td>{{ms .E2E}}</td><td>{{ms .TPOT}}</td><td{{if .L.Summary.Requests.Failed}} class="bad"{{end}}>{{.L.Summary.Requests.Failed}}</td><td{{if not .L.Holds}} class="bad"{{end}}>{{if .L.Holds}}yes{{else}}no: {{.L.Why}}{{end}}</td><td>{{if .L.Dir}}<a href="{{.L.Dir}}/report.html">{{.L.Dir}}</a>{{end}}</td></tr>
{{end}}</table>

` + report.FiguresHTML
