package cachestudy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/report"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/stats"
)

// Write writes dir/cache_study.json and dir/cache_study.html.
func Write(dir string, st *Study, o report.Options) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := runfolder.WriteFile(filepath.Join(dir, File), append(b, '\n')); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, st, o); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, PageFile), err)
	}
	return runfolder.WriteFile(filepath.Join(dir, PageFile), buf.Bytes())
}

// readValues reads one arm's rows into v.
func readValues(dir string, v *analysis.RequestValues) error {
	return rowfile.Read(filepath.Join(dir, runfolder.Requests), func(r results.Row) error {
		v.Add(&r)
		return nil
	})
}

// The study's two plots sit side by side on the first screen, under the verdict.
const (
	studyPlotW = 5.1 * vg.Inch
	studyPlotH = 3.4 * vg.Inch
)

// WriteHTML writes the study's page: the verdict, then the curve (capacity marked,
// measured hit rate a point) and the paired TTFT plot side by side, then the tables.
// Self-contained and offline like report.html.
func WriteHTML(w io.Writer, st *Study, o report.Options) error {
	curve, err := curvePlot(st)
	if err != nil {
		return err
	}
	paired, err := pairedTTFTPlot(st)
	if err != nil {
		return err
	}
	page := studyPageData{S: st, Curve: template.HTML(curve), Paired: template.HTML(paired),
		Traced: st.Arms[Traced], Unique: st.Arms[Unique]}
	if page.FontCSS, err = report.PageFont(o.NoEmbedFont); err != nil {
		return err
	}
	for _, a := range []string{Traced, Unique} {
		page.Links = append(page.Links, studyLink{Name: a, Href: a + "/" + runfolder.Report})
	}
	return report.WritePage(w, studyTmpl, page, "cache study")
}

type studyLink struct{ Name, Href string }

type studyPageData struct {
	S              *Study
	Curve, Paired  template.HTML
	Traced, Unique Arm
	FontCSS        template.CSS
	Links          []studyLink
}

// curveTop is the curve plot's y range: 100% and room for the legend above it.
const curveTop = 132

// curvePlot draws the token hit rate against capacity (log axis, in trace blocks), the ideal
// as a dashed line, the engine's capacity as a vertical line and the measured hit rate as a
// point at that capacity.
func curvePlot(st *Study) (string, error) {
	p := report.NewPlot("LRU hit rate against KV cache capacity", "capacity in trace blocks (log scale)", "prompt tokens hit (%)")
	// The legend sits above 100%, where no hit rate goes: anywhere below, some curve crosses it.
	p.Legend.Top, p.Legend.Left = true, true
	var xys plotter.XYs
	for _, c := range st.Curve {
		if c.CapacityBlocks > 0 {
			xys = append(xys, plotter.XY{X: float64(c.CapacityBlocks), Y: c.TokenHitPct})
		}
	}
	if len(xys) == 0 {
		report.NoData(p, "block hashes")
		return report.SVGSized(p, studyPlotW, studyPlotH)
	}
	xmin, xmax := xys[0].X, xys[len(xys)-1].X
	if c := st.Capacity; c != nil {
		xmin, xmax = math.Min(xmin, float64(max(c.TraceBlocks, 1))), math.Max(xmax, float64(max(c.TraceBlocks, 1)))
	}
	if xmax <= xmin {
		xmax = xmin * 10
	}
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.X.Min, p.X.Max = xmin/1.3, xmax*1.3
	p.Y.Min, p.Y.Max = 0, curveTop
	p.Y.Tick.Marker = plot.ConstantTicks{{Value: 0, Label: "0"}, {Value: 25, Label: "25"}, {Value: 50, Label: "50"}, {Value: 75, Label: "75"}, {Value: 100, Label: "100"}}
	ln, pts, err := plotter.NewLinePoints(xys)
	if err != nil {
		return "", err
	}
	ln.LineStyle = report.LineStyle(report.Blue, 1.8, false)
	pts.Shape, pts.Color, pts.Radius = draw.CircleGlyph{}, report.Blue, vg.Points(2)
	p.Add(ln, pts)
	p.Legend.Add("LRU curve", ln)
	ideal, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: st.IdealTokenHitPct}, {X: p.X.Max, Y: st.IdealTokenHitPct}})
	if err != nil {
		return "", err
	}
	ideal.LineStyle = report.LineStyle(report.Gray, 1.2, true)
	p.Add(ideal)
	p.Legend.Add(fmt.Sprintf("ideal %.1f%%", st.IdealTokenHitPct), ideal)
	if c := st.Capacity; c != nil {
		x := float64(max(c.TraceBlocks, 1))
		v, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: 100}})
		if err != nil {
			return "", err
		}
		v.LineStyle = report.LineStyle(report.Orange, 1.5, true)
		p.Add(v)
		label := fmt.Sprintf("engine capacity %s tokens", countFig(c.Tokens))
		if st.PredictedHitPct != nil {
			label += fmt.Sprintf(": predicted %.1f%%", *st.PredictedHitPct)
		}
		p.Legend.Add(label, v)
		if m := st.MeasuredHitPct; m != nil {
			sc, err := plotter.NewScatter(plotter.XYs{{X: x, Y: *m}})
			if err != nil {
				return "", err
			}
			sc.Shape, sc.Color, sc.Radius = draw.PyramidGlyph{}, report.Red, vg.Points(5)
			p.Add(sc)
			p.Legend.Add(fmt.Sprintf("measured %.1f%% (%s)", *m, st.MeasuredSource), sc)
		}
	}
	return report.SVGSized(p, studyPlotW, studyPlotH)
}

// pairedTTFTPlot draws each request's TTFT with prefixes as traced against its TTFT with unique
// prefixes: below the diagonal, caching made that request faster.
func pairedTTFTPlot(st *Study) (string, error) {
	p := report.NewPlot("TTFT per request, paired", "unique prefixes: TTFT (ms)", "prefixes as traced: TTFT (ms)")
	p.Legend.Top, p.Legend.Left = true, true
	if len(st.Pairs) == 0 {
		report.NoData(p, "request ok in both arms")
		return report.SVGSized(p, studyPlotW, studyPlotH)
	}
	xys := make(plotter.XYs, len(st.Pairs))
	hi := 0.0
	for i, pr := range st.Pairs {
		xys[i] = plotter.XY{X: pr.A, Y: pr.B}
		hi = math.Max(hi, math.Max(pr.A, pr.B))
	}
	hi *= 1.05
	if !(hi > 0) {
		hi = 1
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, hi, 0, hi
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return "", err
	}
	sc.Shape, sc.Color, sc.Radius = draw.CircleGlyph{}, report.Blue, vg.Points(1.6)
	p.Add(sc)
	p.Legend.Add(fmt.Sprintf("%d requests", len(xys)), sc)
	diag, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: hi, Y: hi}})
	if err != nil {
		return "", err
	}
	diag.LineStyle = report.LineStyle(report.Gray, 1.2, true)
	p.Add(diag)
	p.Legend.Add("no difference", diag)
	return report.SVGSized(p, studyPlotW, studyPlotH)
}

var studyTmpl = template.Must(template.New("study").Funcs(report.PageFuncs).Funcs(template.FuncMap{
	"pctp": func(v *float64) string {
		if v == nil {
			return "n/a"
		}
		return fmt.Sprintf("%.1f%%", *v)
	},
	"fig": stats.Fig,
	"gib": func(v *float64) string {
		if v == nil {
			return ""
		}
		return stats.Fig(math.Round(*v*1000) / 1000)
	},
	"count":  countFig,
	"sfig":   stats.SignedFig,
	"arms":   func(a, b Arm) []Arm { return []Arm{a, b} },
	"tests":  func(a, b stats.PairedTest) []stats.PairedTest { return []stats.PairedTest{a, b} },
	"pct100": func(v float64) float64 { return 100 * v },
	"int64":  func(v int) int64 { return int64(v) },
}).Parse(studyHTML))

var studyHTML = report.PageHead(`replay cache study · {{.S.Trace}}`) + `body{max-width:1080px}
th:first-child,td:first-child{text-align:left}
th{background:#f4f6f8;font-weight:bold}
.note{color:#555;font-size:13px;margin:2px 0 8px}
.verdict{font-size:15px;margin:8px 0;padding:6px 10px;background:#f4f6f8;border-left:4px solid #1f77b4}
.verdict ul{margin:4px 0 0;padding-left:20px;font-size:14px}
.plots{display:flex;gap:8px;flex-wrap:nowrap}
.plots figure{margin:0;flex:1 1 0;min-width:0}
.plots svg{width:100%;height:auto}
.bad{color:#b00}
h1{margin-top:0}
</style>
</head>
<body>
<h1>replay cache study: how much does prefix caching buy?</h1>
<div class="verdict" id="verdict"><b>{{.S.Verdict}}</b>
<ul>{{range .S.Lines}}<li>{{.}}</li>{{end}}{{range .S.Caveat}}<li class="bad">{{.}}</li>{{end}}</ul></div>
<div class="plots">
<figure id="curve">{{.Curve}}</figure>
<figure id="paired-ttft">{{.Paired}}</figure>
</div>
<p class="note">Left: the share of prompt tokens an LRU prefix cache of each capacity would hold when asked, over the traced arm's prompts in send order (one pass, every capacity; dashed grey the infinite cache), the engine's capacity dashed orange, and the hit rate the engine reported as the red point. Right: each request's TTFT in the two replays of the same window (same schedule, same prompt lengths); with prefixes as traced on the vertical axis, so a point below the diagonal is a request caching made faster.</p>

<h2>Arms</h2>
<table>
<tr><th>arm</th><th>requests ok</th><th>prompt tokens</th><th>cached tokens</th><th>hit rate (usage)</th><th>hit rate (/metrics)</th><th>TTFT p50 (ms)</th><th>TTFT p95 (ms)</th><th>requests/s</th><th>output tokens/s</th><th>goodput</th><th>prefix cache</th><th>run</th></tr>
{{range $i, $a := (arms .Traced .Unique)}}<tr><td>{{if eq $i 0}}traced{{else}}unique{{end}}</td><td>{{$a.OK}} of {{$a.Requests}}</td><td>{{count $a.PromptTokens}}</td><td>{{count $a.CachedTokens}}</td><td>{{pctp $a.UsageHitPct}}</td><td>{{pctp $a.ServerHitPct}}</td><td>{{ms $a.TTFTP50}}</td><td>{{ms $a.TTFTP95}}</td><td>{{f2 $a.ReqS}}</td><td>{{f1 $a.OutputTokS}}</td><td>{{with $a.GoodputPct}}{{f1 .}}%{{else}}n/a{{end}}</td><td>{{$a.CacheReset}}</td><td><a href="{{if eq $i 0}}traced{{else}}unique{{end}}/report.html">report</a></td></tr>
{{end}}</table>

<h2>Paired per request: traced minus unique</h2>
<table>
<tr><th>metric</th><th>pairs</th><th>unique median (ms)</th><th>median difference (ms) [{{fig (pct100 .S.TTFT.Confidence)}}% CI]</th><th>p95 difference (ms)</th><th>Wilcoxon p</th><th>direction</th></tr>
{{range (tests .S.TTFT .S.E2E)}}<tr><td>{{.Name}}</td><td>{{.N}}</td><td>{{ms .MedianA}}</td><td>{{sfig .MedianDiff.Delta}} [{{sfig .MedianDiff.Lo}}, {{sfig .MedianDiff.Hi}}]</td><td>{{sfig .P95Diff.Delta}} [{{sfig .P95Diff.Lo}}, {{sfig .P95Diff.Hi}}]</td><td>{{printf "%.2g" .WilcoxonP}}</td><td>{{.Direction}}</td></tr>
{{end}}</table>
<p class="note">A is the unique arm, B the traced one, each request paired with itself by request id over the requests that succeeded in both; intervals are percentile bootstraps. The unique arm gives every request fresh blocks, so it measures the same traffic with nothing to reuse.</p>

<h2>The trace's prefix structure</h2>
<p class="note">{{count .S.Requests}} requests, block size {{.S.BlockSize}} tokens, {{count (int64 .S.DistinctBlocks)}} distinct blocks; an infinite cache hits {{fig .S.IdealBlockHitPct}}% of blocks, {{fig .S.IdealTokenHitPct}}% of prompt tokens.{{with .S.ModelKV}} KV size: {{.}}.{{end}}{{with .S.Capacity}} Engine capacity: {{count .Tokens}} tokens{{if .Blocks}} ({{.Blocks}} blocks of {{.BlockSize}}){{end}} = {{.TraceBlocks}} trace blocks{{with .GiB}}, {{gib .}} GiB{{end}}, from {{.Source}}.{{end}}</p>
<table>
<tr><th>capacity (trace blocks)</th>{{if .S.KVBytesPerToken}}<th>GiB</th>{{end}}<th>blocks hit</th><th>prompt tokens hit</th></tr>
{{range .S.Curve}}<tr><td>{{if .CapacityBlocks}}{{count (int64 .CapacityBlocks)}}{{else}}infinite{{end}}</td>{{if $.S.KVBytesPerToken}}<td>{{gib .GiB}}</td>{{end}}<td>{{fig .BlockHitPct}}%</td><td>{{fig .TokenHitPct}}%</td></tr>
{{end}}</table>
<p class="note">Runs: {{range .Links}}<a href="{{.Href}}">{{.Name}}</a> {{end}}</p>
</body>
</html>
`
