package trend

import (
	"fmt"
	"html/template"
	"io"
	"math"

	"github.com/llm-replay/replay/report"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// trendAxis picks the wall-time unit of the x axis: minutes for runs within two hours of each
// other, hours within four days, days beyond.
func trendAxis(t *Trend) (string, float64) {
	span := t.Runs[len(t.Runs)-1].StartedAt.Sub(t.Runs[0].StartedAt).Hours()
	switch {
	case span <= 2:
		return "minutes since the first run", 60
	case span <= 96:
		return "hours since the first run", 1
	}
	return "days since the first run", 1.0 / 24
}

// trendPlot draws one point series per figure against wall time, a dashed band, and the
// flagged runs ringed in red.
func trendPlot(t *Trend, title, ylabel string, lines []report.Line, band *[2]float64, flagged plotter.XYs) (string, error) {
	xlabel, _ := trendAxis(t)
	p := report.NewPlot(title, xlabel, ylabel)
	p.Legend.Left = true
	hi, xmax := 0.0, 0.0
	for _, l := range lines {
		for _, xy := range l.XYs {
			hi, xmax = math.Max(hi, xy.Y), math.Max(xmax, xy.X)
		}
	}
	if band != nil {
		hi = math.Max(hi, band[1])
	}
	p.Y.Min, p.Y.Max = 0, math.Max(hi*1.15, 1e-3)
	p.X.Min, p.X.Max = -0.05*math.Max(xmax, 1), math.Max(xmax, 1)*1.05
	for _, l := range lines {
		if len(l.XYs) == 0 {
			continue
		}
		ln, pts, err := plotter.NewLinePoints(l.XYs)
		if err != nil {
			return "", fmt.Errorf("plot %q line %q: %w", title, l.Name, err)
		}
		ln.LineStyle = report.LineStyle(l.Color, 1.2, false)
		pts.Shape, pts.Color, pts.Radius = draw.CircleGlyph{}, l.Color, vg.Points(3)
		p.Add(ln, pts)
		p.Legend.Add(l.Name, ln, pts)
	}
	if band != nil {
		for i, y := range band {
			ln, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: y}, {X: p.X.Max, Y: y}})
			if err != nil {
				return "", err
			}
			ln.LineStyle = report.LineStyle(report.Gray, 1.2, true)
			p.Add(ln)
			if i == 0 {
				p.Legend.Add("band (median ± max(k·1.4826·MAD, 20%))", ln)
			}
		}
	}
	if len(flagged) > 0 {
		sc, err := plotter.NewScatter(flagged)
		if err != nil {
			return "", err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: report.Red, Radius: vg.Points(7), Shape: draw.RingGlyph{}}
		p.Add(sc)
		p.Legend.Add("outside the others' band", sc)
	}
	return report.SVG(p)
}

// WriteHTML writes trend.html: TTFT p50, p95 and p99 per run against wall time with the
// p95 band, goodput and output throughput per run, the spread and one table row per run.
func WriteHTML(w io.Writer, t *Trend, o report.Options) error {
	if len(t.Runs) == 0 {
		return fmt.Errorf("trend has no runs")
	}
	_, per := trendAxis(t)
	x := func(r Run) float64 { return r.StartedAt.Sub(t.Runs[0].StartedAt).Hours() * per }
	var p50, p95, p99, good, tok, flag95, flagGood plotter.XYs
	for _, r := range t.Runs {
		p50 = append(p50, plotter.XY{X: x(r), Y: r.TTFTP50})
		p95 = append(p95, plotter.XY{X: x(r), Y: r.TTFTP95})
		p99 = append(p99, plotter.XY{X: x(r), Y: r.TTFTP99})
		tok = append(tok, plotter.XY{X: x(r), Y: r.OutputTokS})
		if r.GoodputPct != nil {
			good = append(good, plotter.XY{X: x(r), Y: *r.GoodputPct})
		}
		if len(r.Outside) > 0 {
			flag95 = append(flag95, plotter.XY{X: x(r), Y: r.TTFTP95})
			if r.GoodputPct != nil {
				flagGood = append(flagGood, plotter.XY{X: x(r), Y: *r.GoodputPct})
			}
		}
	}
	var all95 []float64
	for _, r := range t.Runs {
		all95 = append(all95, r.TTFTP95)
	}
	lo, hi := Band(all95, t.K)
	band := &[2]float64{math.Max(0, lo), hi}
	type spec struct {
		id, title, caption string
		build              func() (string, error)
	}
	specs := []spec{
		{"ttft", "TTFT per run over wall time", "TTFT p50, p95 and p99 of each run (from send) at the time it started; dashed: the p95 band over all runs; ringed: runs outside the band of the others on a judged figure.",
			func() (string, error) {
				return trendPlot(t, "TTFT per run", "milliseconds", []report.Line{{Name: "p50", Color: report.Light, XYs: p50}, {Name: "p95", Color: report.Orange, XYs: p95}, {Name: "p99", Color: report.Red, XYs: p99}}, band, flag95)
			}},
		{"goodput", "Goodput per run over wall time", "Share of each run's requests meeting every limit of its SLO (no points when the runs had none).",
			func() (string, error) {
				return trendPlot(t, "requests meeting the SLO", "percent of requests", []report.Line{{Name: "goodput", Color: report.Green, XYs: good}}, nil, flagGood)
			}},
		{"throughput", "Output throughput per run over wall time", "Output tokens per second over each run's measured span.",
			func() (string, error) {
				return trendPlot(t, "output tokens per second", "tokens / s", []report.Line{{Name: "output tokens / s", Color: report.Purple, XYs: tok}}, nil, nil)
			}},
	}
	page := trendPageData{T: t, Names: []string{"ttft_p50_ms", "ttft_p95_ms", "ttft_p99_ms", "goodput_pct", "output_tok_s"}}
	for _, s := range specs {
		svg, err := s.build()
		if err != nil {
			return err
		}
		page.Figures = append(page.Figures, report.Figure{ID: s.id, Title: s.title, Caption: s.caption, SVG: svg})
	}
	var err error
	if page.FontCSS, err = report.PageFont(o.NoEmbedFont); err != nil {
		return err
	}
	return report.WritePage(w, trendTmpl, page, "trend report")
}

type trendPageData struct {
	T       *Trend
	Names   []string
	Figures []report.Figure
	FontCSS template.CSS
}

var trendTmpl = template.Must(template.New("trend").Funcs(report.PageFuncs).Funcs(template.FuncMap{
	"spread": func(t *Trend, name string) *Spread {
		if s, ok := t.Spread[name]; ok {
			return &s
		}
		return nil
	},
	"gp": func(v *float64) string {
		if v == nil {
			return "n/a"
		}
		return fmt.Sprintf("%.1f%%", *v)
	},
}).Parse(trendHTML))

var trendHTML = report.PageHead(`replay trend · {{len .T.Runs}} runs`) + `th:first-child,td:first-child{text-align:left}
th{background:#f4f6f8;font-weight:bold}
.note{color:#555;font-size:13px;margin:2px 0 8px}
.verdict{font-size:16px;margin:10px 0}
.bad{color:#b00}
</style>
</head>
<body>
<h1>replay trend</h1>
<p class="note">{{len .T.Runs}} runs of the same trace side by side, in the order they started. Rule: {{.T.Rule}}.</p>
<p class="verdict" id="verdict">{{if .T.Flagged}}<b class="bad">{{len .T.Flagged}} run(s) outside the band of the others:</b> {{range .T.Flagged}}{{.}} {{end}}{{else}}<b>Every run is within the band of the others.</b>{{end}}</p>

<h2>Runs</h2>
<table>
<tr><th>run</th><th>started</th><th>requests</th><th>failed</th><th>TTFT p50 (ms)</th><th>TTFT p95 (ms)</th><th>TTFT p99 (ms)</th><th>goodput</th><th>output tokens/s</th><th>band</th></tr>
{{range .T.Runs}}<tr><td>{{.Dir}}</td><td>{{.StartedAt.Format "2006-01-02 15:04:05"}}</td><td>{{.Requests}}</td><td>{{.Failed}}</td><td>{{ms .TTFTP50}}</td><td>{{ms .TTFTP95}}</td><td>{{ms .TTFTP99}}</td><td>{{gp .GoodputPct}}</td><td>{{f1 .OutputTokS}}</td><td{{if .Outside}} class="bad"{{end}}>{{.}}</td></tr>
{{end}}</table>

<h2>Spread</h2>
<table>
<tr><th>figure</th><th>median</th><th>MAD</th><th>min</th><th>max</th><th>CV</th></tr>
{{range $n := .Names}}{{with spread $.T $n}}<tr><td>{{$n}}</td><td>{{f2 .Median}}</td><td>{{f2 .MAD}}</td><td>{{f2 .Min}}</td><td>{{f2 .Max}}</td><td>{{f1 .CVPct}}%</td></tr>{{end}}
{{end}}</table>

` + report.FiguresHTML
