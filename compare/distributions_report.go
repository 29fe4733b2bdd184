package compare

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot/plotter"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/checkresult"
	"github.com/llm-replay/replay/report"
)

func fmtVal(v float64, unit string) string {
	if unit == "ms" {
		return analysis.FormatMS(v)
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func fmtDelta(r Row) string {
	s := fmtVal(math.Abs(r.Delta), r.Unit)
	switch {
	case r.Delta > 0:
		s = "+" + s
	case r.Delta < 0:
		s = "-" + s
	}
	if r.A != 0 {
		s += fmt.Sprintf(" (%+.1f%%)", r.DeltaPct)
	}
	return s
}

// WriteTable prints a comparison for the terminal: the verdict first, then the tests and
// the figures side by side.
func WriteTable(w io.Writer, c *Comparison) error {
	var b strings.Builder
	fmt.Fprintf(&b, "verdict: %s\n", c.Verdict)
	fmt.Fprintf(&b, "A = %s\nB = %s\n\n", c.LabelA, c.LabelB)
	for _, t := range c.Tests {
		fmt.Fprintf(&b, "bootstrap %-9s A %s ms  B %s ms  B - A %s\n", t.Name, analysis.FormatMS(t.A), analysis.FormatMS(t.B), t.interval())
	}
	mw := c.TTFTMannWhitney
	fmt.Fprintf(&b, "Mann-Whitney U on TTFT: P(B > A) = %.3f, z = %.2f, p = %.3g\n\n", mw.ProbBGreater, mw.Z, mw.P)
	fmt.Fprintf(&b, "%-22s %-14s %12s %12s %20s\n", "metric", "stat", "A", "B", "B - A")
	for _, r := range c.Rows {
		stat := r.Stat
		if r.Unit != "" {
			stat += " " + r.Unit
		}
		fmt.Fprintf(&b, "%-22s %-14s %12s %12s %20s\n", r.Metric, stat, fmtVal(r.A, r.Unit), fmtVal(r.B, r.Unit), fmtDelta(r))
	}
	if eps := compareChecks(c); eps != nil {
		b.WriteString("\n")
		if err := checkresult.WriteText(&b, eps); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cdfLine samples an ascending sample's empirical CDF at up to 400 points.
func cdfLine(x []float64) plotter.XYs {
	n := len(x)
	if n == 0 {
		return nil
	}
	step := max(1, n/400)
	var xys plotter.XYs
	for i := 0; i < n; i += step {
		xys = append(xys, plotter.XY{X: x[i], Y: float64(i+1) / float64(n)})
	}
	if last := xys[len(xys)-1]; last.Y != 1 {
		xys = append(xys, plotter.XY{X: x[n-1], Y: 1})
	}
	return xys
}

func cdfPlot(title string, a, b []float64, la, lb string) (string, error) {
	p := report.NewPlot(title, "milliseconds", "share of requests")
	lines := []report.Line{{Name: "A " + la, Color: report.Blue, XYs: cdfLine(a)}, {Name: "B " + lb, Color: report.Orange, XYs: cdfLine(b)}}
	drew := false
	for _, nl := range lines {
		if len(nl.XYs) == 0 {
			continue
		}
		drew = true
		ln, err := plotter.NewLine(nl.XYs)
		if err != nil {
			return "", err
		}
		ln.LineStyle = report.LineStyle(nl.Color, 1.5, false)
		p.Add(ln)
		p.Legend.Add(nl.Name, ln)
	}
	if !drew {
		report.NoData(p, "samples")
		return report.SVG(p)
	}
	p.Legend.Top, p.Legend.Left = false, false
	p.Y.Min, p.Y.Max = 0, 1
	return report.SVG(p)
}

type comparePage struct {
	C       *Comparison
	Rows    []compareHTMLRow
	Figures []report.Figure
	FontCSS template.CSS
	// Checks are both runs' behaviour checks side by side, "" when neither had any.
	Checks template.HTML
}

type compareHTMLRow struct {
	Metric, Stat, A, B, Delta string
	Worse                     bool
}

// WriteHTML writes a self-contained comparison page: verdict, tests, side-by-side
// table and TTFT and e2e CDFs of both runs as inline SVG.
func WriteHTML(w io.Writer, c *Comparison, o report.Options) error {
	page := comparePage{C: c}
	if eps := compareChecks(c); eps != nil {
		page.Checks = checkresult.HTML(eps)
	}
	var err error
	if page.FontCSS, err = report.PageFont(o.NoEmbedFont); err != nil {
		return err
	}
	for _, r := range c.Rows {
		stat := r.Stat
		if r.Unit != "" {
			stat += " (" + r.Unit + ")"
		}
		// Higher is worse for latencies and failures, better for throughput and goodput.
		worse := r.Delta > 0
		if r.Metric == "throughput" || r.Metric == "goodput" || r.Stat == "total" {
			worse = r.Delta < 0
		}
		page.Rows = append(page.Rows, compareHTMLRow{r.Metric, stat, fmtVal(r.A, r.Unit), fmtVal(r.B, r.Unit), fmtDelta(r), worse && r.Delta != 0})
	}
	for _, f := range []struct {
		id, title, caption string
		a, b               []float64
	}{
		{"ttft-cdf", "TTFT, both runs", "Empirical CDF of TTFT (successful requests, from send).", c.ttftA, c.ttftB},
		{"e2e-cdf", "End-to-end latency, both runs", "Empirical CDF of e2e latency (successful requests, from send).", c.e2eA, c.e2eB},
	} {
		svg, err := cdfPlot(f.title, f.a, f.b, c.LabelA, c.LabelB)
		if err != nil {
			return err
		}
		page.Figures = append(page.Figures, report.Figure{ID: f.id, Title: f.title, Caption: f.caption, SVG: svg})
	}
	return report.WritePage(w, compareTmpl, page, "comparison")
}

var compareTmpl = template.Must(template.New("compare").Funcs(report.PageFuncs).Funcs(template.FuncMap{
	"interval": func(t Test) string { return t.interval() },
}).Parse(compareHTML))

var compareHTML = report.PageHead(`replay compare`) + `th:first-child,td:first-child,td.l{text-align:left}
th{background:#f4f6f8}
.verdict{font-size:17px;font-weight:bold;padding:8px 12px;background:#f4f6f8;border-left:4px solid #1f77b4}
.note{color:#555;font-size:13px}
.worse{color:#b00}
{{if .Checks}}` + string(report.ChecksCSS) + `{{end}}</style>
</head>
<body>
<h1>replay compare</h1>
<p class="verdict">{{.C.Verdict}}</p>
<table>
<tr><td class="l">A</td><td class="l">{{if ne .C.LabelA "A"}}{{.C.LabelA}}{{end}}{{with .C.A.Run.Endpoint}} · {{.}}{{end}}{{with .C.A.Run.Model}} · {{.}}{{end}}</td></tr>
<tr><td class="l">B</td><td class="l">{{if ne .C.LabelB "B"}}{{.C.LabelB}}{{end}}{{with .C.B.Run.Endpoint}} · {{.}}{{end}}{{with .C.B.Run.Model}} · {{.}}{{end}}</td></tr>
</table>

{{with .Checks}}<h2 id="checks">Behaviour checks</h2>
{{.}}{{end}}
<h2>Significance</h2>
<table>
<tr><th>test</th><th>A (ms)</th><th>B (ms)</th><th>B - A with bootstrap CI</th><th>n A / B</th></tr>
{{range .C.Tests}}<tr><td>{{.Name}}</td><td>{{ms .A}}</td><td>{{ms .B}}</td><td>{{interval .}}</td><td>{{index .N 0}} / {{index .N 1}}</td></tr>
{{end}}</table>
<p class="note">Percentile bootstrap of the difference, each run resampled independently. Mann-Whitney U on TTFT: P(B &gt; A) = {{f3 .C.TTFTMannWhitney.ProbBGreater}}, z = {{f2 .C.TTFTMannWhitney.Z}}, p = {{printf "%.3g" .C.TTFTMannWhitney.P}}.</p>

<h2>Side by side</h2>
<table>
<tr><th>metric</th><th>stat</th><th>A</th><th>B</th><th>B - A</th></tr>
{{range .Rows}}<tr><td>{{.Metric}}</td><td class="l">{{.Stat}}</td><td>{{.A}}</td><td>{{.B}}</td><td{{if .Worse}} class="worse"{{end}}>{{.Delta}}</td></tr>
{{end}}</table>

` + report.FiguresHTML

// compareChecks are both runs' behaviour checks side by side, as A and B; nil when neither
// had any.
func compareChecks(c *Comparison) []checkresult.Endpoint {
	var ca, cb *analysis.Checks
	if c.A != nil {
		ca = c.A.Run.Checks
	}
	if c.B != nil {
		cb = c.B.Run.Checks
	}
	if ca == nil && cb == nil {
		return nil
	}
	return []checkresult.Endpoint{analysis.ChecksEndpoint("A", ca), analysis.ChecksEndpoint("B", cb)}
}
