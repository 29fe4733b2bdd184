package runner

import (
	"fmt"
	"html/template"
	"io"

	"github.com/llm-replay/replay/analysis"
)

// writePairedHTML writes compare.html: a self-contained page with, for each B, the verdict
// first, the endpoints with links to their reports, the paired tests with their intervals and
// Wilcoxon p, and the unpaired comparison's verdict with a link to its side-by-side page.
func writePairedHTML(w io.Writer, pcs []pairedComparison) error {
	if err := pairedTmpl.Execute(w, struct {
		Pairs      []pairedComparison
		Confidence string
	}{pcs, percent(PairedConfidence)}); err != nil {
		return fmt.Errorf("render %s: %w", CompareHTMLFile, err)
	}
	return nil
}

var pairedTmpl = template.Must(template.New("paired").Funcs(template.FuncMap{
	"fig": signedFigure,
	"ms":  func(v float64) string { return fmt.Sprintf("%.2f", v) },
	"iv": func(iv analysis.Interval) string {
		return fmt.Sprintf("%s [%s, %s]", signedFigure(iv.Delta), signedFigure(iv.Lo), signedFigure(iv.Hi))
	},
	"pct":    func(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) },
	"margin": figure,
	"rel": func(t pairedFigure) string {
		if t.MedianA <= 0 {
			return ""
		}
		return fmt.Sprintf("%+.1f%%", 100*t.MedianDiff.Delta/t.MedianA)
	},
	"p":    func(v float64) string { return fmt.Sprintf("%.2g", v) },
	"same": func(d string) bool { return d == analysis.PairedSame },
}).Parse(pairedHTML))

const pairedHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>replay paired run</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:1100px;margin:24px auto;padding:0 16px;color:#222}
table{border-collapse:collapse;margin:8px 0 16px}
th,td{border:1px solid #ddd;padding:4px 8px;text-align:right;font-variant-numeric:tabular-nums}
th{background:#f4f6f8}
th:first-child,td:first-child,td.l{text-align:left}
.verdict{font-size:17px;font-weight:bold;padding:8px 12px;background:#f4f6f8;border-left:4px solid #1f77b4}
.verdict.claim{border-left-color:#d62728}
.note{color:#555;font-size:13px}
</style>
</head>
<body>
<h1>replay paired run</h1>
{{range .Pairs}}<section>
<p class="verdict{{if not (same .Direction)}} claim{{end}}">{{.Verdict}}</p>
<table>
<tr><td class="l">A</td><td class="l">{{.A}}</td><td class="l">{{.AEndpoint}}</td><td class="l">{{.AModel}}</td><td class="l"><a href="{{.ReportA}}">report</a></td></tr>
<tr><td class="l">B</td><td class="l">{{.B}}</td><td class="l">{{.BEndpoint}}</td><td class="l">{{.BModel}}</td><td class="l"><a href="{{.ReportB}}">report</a></td></tr>
</table>
<h2>Per request: B - A</h2>
<table>
<tr><th>metric</th><th>pairs</th><th>A median (ms)</th><th>median B - A (ms) [{{$.Confidence}}% CI]</th><th>of A's median</th><th>p95 B - A (ms) [{{$.Confidence}}% CI]</th><th>Wilcoxon p</th><th>B slower by more than</th><th>test</th><th>margin (ms)</th><th>verdict</th></tr>
{{range .Paired}}<tr><td>{{.Name}}</td><td>{{.N}}</td><td>{{ms .MedianA}}</td><td>{{iv .MedianDiff}}</td><td>{{rel .}}</td><td>{{iv .P95Diff}}</td><td>{{p .WilcoxonP}}</td><td>{{pct .SlowerShare}} of requests by {{.SlowerThan}}</td><td class="l">{{.Direction}}</td><td>±{{margin .MarginMS}}</td><td class="l">{{.Claim}}</td></tr>
{{end}}</table>
<p class="note">Every request was sent to both endpoints at its scheduled time with the same prompt bytes; each difference is one request's B minus its A, over the requests that succeeded at both. Intervals are percentile bootstraps of the median difference and of p95(B) - p95(A) over resampled requests. A test claims a direction only when its median interval excludes zero and the Wilcoxon signed-rank test rejects at {{$.Confidence}}%; each of the three is run at that level so that together they claim a difference that is not there at most 3% of the time. The verdict claims a figure only when its median interval also lies beyond the margin: 1% of A's median, and at least 1 ms for TTFT and e2e. Two servers' step loops stand at slowly drifting phases, which neighbouring requests share: two identical simulators differed by up to a millisecond or two in median TTFT, either sign, from one run to the next, real for the run and no property of B.</p>
{{if .Unpaired}}<h2>Unpaired</h2>
<p>Each run's distribution on its own, as <code>replay compare</code> tests it: {{.Unpaired.Verdict}} (<a href="{{.UnpairedHTML}}">side by side, with CDFs</a>)</p>
{{end}}
</section>
{{end}}</body>
</html>
`
