package sweep

import (
	"fmt"
	"html/template"
	"image/color"
	"io"
	"math"
	"strconv"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/report"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PageFile is the sweep page's file name inside the sweep's folder.
const PageFile = "sweep.html"

// SpeedRun is one speed of a sweep as the page shows it: the run's summary, whether it held
// the SLO, and its folder relative to the page (linked when not empty).
type SpeedRun struct {
	Speed   float64
	Dir     string
	Summary *analysis.Summary
	Holds   bool
}

// SpeedPage is a whole sweep: the SLO text, the share of requests that had to meet it, the
// knee (the largest speed that held, 0 if none) and the runs in increasing speed.
type SpeedPage struct {
	SLO       string
	TargetPct float64
	Knee      float64
	Runs      []SpeedRun
}

// WriteSpeedHTML writes sweep.html: p95 latency against speed with the SLO's limits, throughput
// against speed, and the share of requests meeting the SLO against the target, each with the
// knee marked; then one table row per run. Self-contained and offline like report.html.
func WriteSpeedHTML(w io.Writer, sp SpeedPage, o report.Options) error {
	for i, r := range sp.Runs {
		if r.Summary == nil {
			return fmt.Errorf("sweep run %d (speed %gx) has no summary", i, r.Speed)
		}
	}
	figs, err := sweepPlots(sp)
	if err != nil {
		return err
	}
	page := sweepPageData{P: sp, Figures: figs}
	for _, r := range sp.Runs {
		page.HasCost = page.HasCost || r.Summary.Cost != nil
	}
	if page.FontCSS, err = report.PageFont(o.NoEmbedFont); err != nil {
		return err
	}
	return report.WritePage(w, sweepTmpl, page, "sweep report")
}

type sweepPageData struct {
	P       SpeedPage
	Figures []report.Figure
	FontCSS template.CSS
	// HasCost adds the cost column when any run was priced (--cost-per-hour).
	HasCost bool
}

// limitMS is the SLO's limit of one metric (ttft, e2e) in ms, 0 when the SLO has none.
func (sp SpeedPage) limitMS(key string) float64 {
	for _, r := range sp.Runs {
		if g := r.Summary.Goodput; g != nil {
			return g.LimitsMS[key]
		}
	}
	return 0
}

// speedPlot draws series against the speed factor, with horizontal reference lines (the SLO's
// limits, the target share) and a vertical one at the knee. A latency axis goes logarithmic when
// its values span over 30x, since past the knee they grow by orders of magnitude.
func speedPlot(title, ylabel string, knee float64, lines []report.Line, refs []report.Line, logY, legendLow bool) (string, error) {
	p := report.NewPlot(title, "speed factor (x the trace's rate)", ylabel)
	p.Legend.Left = true
	p.Legend.Top = !legendLow
	lo, hi := math.Inf(1), 0.0
	xmax := 0.0
	for _, l := range append(append([]report.Line(nil), lines...), refs...) {
		for _, xy := range l.XYs {
			if xy.Y > 0 {
				lo = math.Min(lo, xy.Y)
			}
			hi = math.Max(hi, xy.Y)
			xmax = math.Max(xmax, xy.X)
		}
	}
	if xmax == 0 {
		report.NoData(p, "runs")
		return report.SVG(p)
	}
	logY = logY && lo > 0 && hi/lo > 30
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		p.Y.Label.Text = ylabel + " (log scale)"
		p.Y.Min, p.Y.Max = lo/1.5, hi*1.5
	} else {
		p.Y.Min, p.Y.Max = 0, math.Max(hi*1.15, 1e-3)
	}
	p.X.Min, p.X.Max = 0, xmax*1.05
	if len(lines) > 0 {
		p.X.Tick.Marker = speedTicks(lines[0].XYs)
	}
	for _, l := range lines {
		if len(l.XYs) == 0 {
			continue
		}
		xys := l.XYs
		if logY {
			xys = positive(xys)
		}
		ln, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return "", fmt.Errorf("plot %q line %q: %w", title, l.Name, err)
		}
		ln.LineStyle = report.LineStyle(l.Color, 1.8, false)
		pts.Shape = draw.CircleGlyph{}
		pts.Color = l.Color
		pts.Radius = vg.Points(3)
		p.Add(ln, pts)
		p.Legend.Add(l.Name, ln, pts)
	}
	for _, r := range refs {
		ln, err := plotter.NewLine(r.XYs)
		if err != nil {
			return "", fmt.Errorf("plot %q line %q: %w", title, r.Name, err)
		}
		ln.LineStyle = report.LineStyle(r.Color, 1.5, true)
		p.Add(ln)
		p.Legend.Add(r.Name, ln)
	}
	if knee > 0 {
		ln, err := plotter.NewLine(plotter.XYs{{X: knee, Y: p.Y.Min}, {X: knee, Y: p.Y.Max}})
		if err != nil {
			return "", err
		}
		ln.LineStyle = report.LineStyle(report.Gray, 1.5, true)
		p.Add(ln)
		p.Legend.Add(fmt.Sprintf("knee %gx", knee), ln)
	}
	return report.SVG(p)
}

// speedTicks labels the x axis at the speeds tried (the knee is one of them).
func speedTicks(xys plotter.XYs) plot.Ticker {
	return plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		ticks := []plot.Tick{{Value: 0, Label: "0"}}
		for _, xy := range xys {
			ticks = append(ticks, plot.Tick{Value: xy.X, Label: strconv.FormatFloat(xy.X, 'g', -1, 64) + "x"})
		}
		return ticks
	})
}

// positive drops points a log axis cannot show.
func positive(xys plotter.XYs) plotter.XYs {
	var out plotter.XYs
	for _, xy := range xys {
		if xy.Y > 0 {
			out = append(out, xy)
		}
	}
	return out
}

// hline is a horizontal reference line across the sweep's speeds.
func hline(name string, c color.Color, y, xmax float64) report.Line {
	return report.Line{Name: name, Color: c, XYs: plotter.XYs{{X: 0, Y: y}, {X: xmax * 1.05, Y: y}}}
}

func sweepPlots(sp SpeedPage) ([]report.Figure, error) {
	var ttft, e2e, tok, reqs, met plotter.XYs
	xmax := 0.0
	for _, r := range sp.Runs {
		s := r.Summary
		ttft = append(ttft, plotter.XY{X: r.Speed, Y: s.TTFTSched.P95})
		e2e = append(e2e, plotter.XY{X: r.Speed, Y: s.E2ESched.P95})
		tok = append(tok, plotter.XY{X: r.Speed, Y: s.Throughput.OutputTokS})
		reqs = append(reqs, plotter.XY{X: r.Speed, Y: s.Throughput.ReqS})
		m := 0.0
		if s.Goodput != nil {
			m = s.Goodput.AllPct
		}
		met = append(met, plotter.XY{X: r.Speed, Y: m})
		xmax = math.Max(xmax, r.Speed)
	}
	lat := []report.Line{{Name: "TTFT p95", Color: report.Orange, XYs: ttft}}
	var latRefs []report.Line
	if l := sp.limitMS("ttft"); l > 0 {
		latRefs = append(latRefs, hline(fmt.Sprintf("SLO ttft %g ms", l), report.Red, l, xmax))
	}
	if l := sp.limitMS("e2e"); l > 0 {
		lat = append(lat, report.Line{Name: "e2e p95", Color: report.Blue, XYs: e2e})
		latRefs = append(latRefs, hline(fmt.Sprintf("SLO e2e %g ms", l), report.Purple, l, xmax))
	}
	type spec struct {
		id, title, caption string
		build              func() (string, error)
	}
	specs := []spec{
		{"latency", "p95 latency against speed", "p95 TTFT (and e2e when the SLO limits it) from each request's scheduled time, so waiting behind an overloaded endpoint counts; dashed: the SLO's limits.",
			func() (string, error) {
				return speedPlot("p95 latency", "milliseconds", sp.Knee, lat, latRefs, true, false)
			}},
		{"throughput", "Throughput against speed", "Output tokens per second completed over each run's measured span. Past the endpoint's capacity it stops rising with the offered load.",
			func() (string, error) {
				return speedPlot("output tokens per second", "tokens / s", sp.Knee, []report.Line{{Name: "output tokens / s", Color: report.Purple, XYs: tok}}, nil, false, false)
			}},
		{"requests", "Completed requests against speed", "Successful requests per second over each run's measured span.",
			func() (string, error) {
				return speedPlot("requests per second", "requests / s", sp.Knee, []report.Line{{Name: "completed requests / s", Color: report.Green, XYs: reqs}}, nil, false, false)
			}},
		{"goodput", "Requests meeting the SLO against speed", fmt.Sprintf("Share of requests meeting every limit of %s; dashed: the %g%% a speed must reach to hold. The knee is the largest speed that held.", sp.SLO, sp.TargetPct),
			func() (string, error) {
				return speedPlot("requests meeting the SLO", "percent of requests", sp.Knee, []report.Line{{Name: "met every limit", Color: report.Green, XYs: met}},
					[]report.Line{hline(fmt.Sprintf("target %g%%", sp.TargetPct), report.Red, sp.TargetPct, xmax)}, false, true)
			}},
	}
	figs := make([]report.Figure, 0, len(specs))
	for _, s := range specs {
		svg, err := s.build()
		if err != nil {
			return nil, err
		}
		figs = append(figs, report.Figure{ID: s.id, Title: s.title, Caption: s.caption, SVG: svg})
	}
	return figs, nil
}

var sweepTmpl = template.Must(template.New("sweep").Funcs(report.PageFuncs).Parse(sweepHTML))

var sweepHTML = report.PageHead(`replay sweep · {{.P.SLO}}`) + `th:first-child,td:first-child{text-align:left}
th{background:#f4f6f8;font-weight:bold}
.note{color:#555;font-size:13px;margin:2px 0 8px}
.verdict{font-size:16px;margin:10px 0}
.bad{color:#b00}
</style>
</head>
<body>
<h1>replay sweep</h1>
<p class="note">The same trace replayed open loop at increasing speed factors; a speed holds when at least {{.P.TargetPct}}% of its requests meet every limit of the SLO. The sweep stops at the first speed that does not hold.</p>
<p class="verdict" id="verdict">{{if .P.Knee}}<b>Knee: {{.P.Knee}}x</b> is the largest speed tried at which {{.P.TargetPct}}% of requests met {{.P.SLO}}.{{else}}<b class="bad">No speed tried held {{.P.SLO}}</b> for {{.P.TargetPct}}% of requests.{{end}}</p>

<h2>Runs</h2>
<table>
<tr><th>speed</th><th>requests/s</th><th>output tokens/s</th><th>TTFT p95 (ms)</th><th>e2e p95 (ms)</th><th>met SLO</th><th>failed</th><th>holds</th>{{if .HasCost}}<th>$/M output tokens at SLO</th>{{end}}<th>run</th></tr>
{{range .P.Runs}}<tr><td>{{.Speed}}x</td><td>{{f2 .Summary.Throughput.ReqS}}</td><td>{{f1 .Summary.Throughput.OutputTokS}}</td><td>{{ms .Summary.TTFTSched.P95}}</td><td>{{ms .Summary.E2ESched.P95}}</td><td>{{with .Summary.Goodput}}{{f1 .AllPct}}%{{else}}n/a{{end}}</td><td{{if .Summary.Requests.Failed}} class="bad"{{end}}>{{.Summary.Requests.Failed}}</td><td{{if not .Holds}} class="bad"{{end}}>{{if .Holds}}yes{{else}}no{{end}}</td>{{if $.HasCost}}<td>{{with .Summary.Cost}}{{money .PerMOutputTokensSLO}}{{end}}</td>{{end}}<td>{{if .Dir}}<a href="{{.Dir}}/report.html">{{.Dir}}</a>{{end}}</td></tr>
{{end}}</table>
<p class="note">Latencies from each request's scheduled time. Throughput over each run's measured span (first send to last completion).</p>

` + report.FiguresHTML
