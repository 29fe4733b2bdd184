package calibrate

import (
	"fmt"
	"html/template"
	"image/color"
	"io"
	"math"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/report"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PageFile is the calibration's plot page beside calibration.json.
const PageFile = "calibration.html"

// scatterLine is a set of measured points and, optionally, the curve fitted to them.
type scatterLine struct {
	name string
	c    color.Color
	xys  plotter.XYs
	fit  *analysis.Fit
}

// scatterPlot draws measured points with their fitted curves over [0, the largest x].
func scatterPlot(title, xlabel, ylabel string, sets []scatterLine, zeroLine bool) (string, error) {
	p := report.NewPlot(title, xlabel, ylabel)
	p.Legend.Left = true
	xmax := 0.0
	for _, s := range sets {
		for _, xy := range s.xys {
			xmax = math.Max(xmax, xy.X)
		}
	}
	if xmax == 0 {
		report.NoData(p, "points")
		return report.SVG(p)
	}
	p.X.Min, p.X.Max = 0, xmax*1.05
	for _, s := range sets {
		if len(s.xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(s.xys)
		if err != nil {
			return "", fmt.Errorf("plot %q points %q: %w", title, s.name, err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: s.c, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
		p.Add(sc)
		p.Legend.Add(s.name, sc)
		if s.fit != nil {
			var curve plotter.XYs
			for i := 0; i <= 50; i++ {
				x := xmax * float64(i) / 50
				curve = append(curve, plotter.XY{X: x, Y: s.fit.At(x)})
			}
			ln, err := plotter.NewLine(curve)
			if err != nil {
				return "", err
			}
			ln.LineStyle = report.LineStyle(s.c, 1.5, false)
			p.Add(ln)
			p.Legend.Add(s.fit.Model+" fit", ln)
		}
	}
	if zeroLine {
		ln, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: xmax * 1.05, Y: 0}})
		if err != nil {
			return "", err
		}
		ln.LineStyle = report.LineStyle(report.Gray, 1, true)
		p.Add(ln)
	}
	return report.SVG(p)
}

// WriteHTML writes calibration.html: TTFT against uncached prompt tokens with the
// fitted curve (and the cached-prefix repeats with theirs), the residuals, TPOT against
// context, and the points as a table.
func WriteHTML(w io.Writer, c *analysis.Calibration, o report.Options) error {
	var unc, cac, res, cres, tpot plotter.XYs
	for _, p := range c.Points {
		switch p.Kind {
		case analysis.PointUncached:
			unc = append(unc, plotter.XY{X: float64(p.UncachedTokens), Y: p.TTFTMS})
			res = append(res, plotter.XY{X: float64(p.UncachedTokens), Y: p.ResidualMS})
			if p.TPOTMS > 0 {
				tpot = append(tpot, plotter.XY{X: p.ContextTokens, Y: p.TPOTMS})
			}
		case analysis.PointCached:
			cac = append(cac, plotter.XY{X: float64(p.PromptTokens), Y: p.TTFTMS})
			cres = append(cres, plotter.XY{X: float64(p.PromptTokens), Y: p.ResidualMS})
		}
	}
	ttftFit := c.TTFT
	specs := []struct {
		id, title, caption string
		build              func() (string, error)
	}{
		{"ttft", "TTFT against prompt tokens", "Single requests, one at a time. Orange: fresh prompts against their uncached tokens, with the curve fitted to them; green: the same prompt sent again at once, against its whole length, its prefix in the endpoint's cache.",
			func() (string, error) {
				return scatterPlot("TTFT of one request alone", "prompt tokens (uncached for fresh prompts)", "milliseconds",
					[]scatterLine{{"fresh prompt", report.Orange, unc, &ttftFit}, {"prefix cached", report.Green, cac, c.TTFTCached}}, false)
			}},
		{"residuals", "Residuals of the TTFT fits", "Measured TTFT less the fitted curve's, per point: a pattern here (a bow, a trend) says the model is the wrong shape; scatter around 0 is measurement noise.",
			func() (string, error) {
				return scatterPlot("residuals", "prompt tokens", "measured - fitted (ms)",
					[]scatterLine{{"fresh prompt", report.Orange, res, nil}, {"prefix cached", report.Green, cres, nil}}, true)
			}},
		{"tpot", "TPOT against context", "Time per output token of each fresh request against its mean decode context (prompt plus half the output), with a linear fit.",
			func() (string, error) {
				return scatterPlot("time per output token, one request alone", "context tokens", "milliseconds",
					[]scatterLine{{"TPOT", report.Purple, tpot, c.TPOT}}, false)
			}},
	}
	page := calibrationPageData{C: c}
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
	return report.WritePage(w, calibrationTmpl, page, "calibration report")
}

type calibrationPageData struct {
	C       *analysis.Calibration
	Figures []report.Figure
	FontCSS template.CSS
}

var calibrationTmpl = template.Must(template.New("calibration").Funcs(report.PageFuncs).Parse(calibrationHTML))

var calibrationHTML = report.PageHead(`replay calibrate · {{.C.Model}}`) + `th{background:#f4f6f8;font-weight:bold}
.note{color:#555;font-size:13px;margin:2px 0 8px}
.fit{font-family:monospace;font-size:14px;margin:6px 0}
</style>
</head>
<body>
<h1>replay calibrate</h1>
<p class="note">{{.C.Model}} at {{.C.Endpoint}}: single requests, one at a time, over prompts of {{.C.PromptTokens}} tokens and outputs of {{.C.OutputTokens}} tokens, {{.C.Repeats}} repeats after {{.C.Warmup}} warm-up requests. These curves are what one request costs alone; a loaded run's TTFT above them is queueing (replay run --calibration).</p>
<p class="fit" id="ttft-fit">TTFT = {{.C.TTFT}}</p>
{{with .C.TTFTCached}}<p class="fit">TTFT, prefix cached = {{.}}</p>{{end}}
{{with .C.TPOT}}<p class="fit">TPOT = {{.}}</p>{{end}}
<p class="note">The TTFT model is linear unless a quadratic (attention's cost on long prompts) has a positive x² term and cuts the RMS residual by a fifth or more (here: linear {{f2 .C.TTFT.LinearRMSMS}} ms{{if .C.TTFT.QuadraticRMSMS}}, quadratic {{f2 .C.TTFT.QuadraticRMSMS}} ms{{end}}).</p>
` + `{{range .Figures}}<h2 id="{{.ID}}">{{.Title}}</h2>
<figure>
{{svg .SVG}}
<figcaption>{{.Caption}}</figcaption>
</figure>
{{end}}
<h2>Points</h2>
<table>
<tr><th>kind</th><th>prompt tokens</th><th>cached</th><th>output tokens</th><th>TTFT (ms)</th><th>residual (ms)</th><th>TPOT (ms)</th></tr>
{{range .C.Points}}<tr><td>{{.Kind}}</td><td>{{.PromptTokens}}</td><td>{{.CachedTokens}}</td><td>{{.OutputTokens}}</td><td>{{f2 .TTFTMS}}</td><td>{{f2 .ResidualMS}}</td><td>{{f2 .TPOTMS}}</td></tr>
{{end}}</table>
</body>
</html>
`
