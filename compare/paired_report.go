package compare

import (
	"fmt"
	"html/template"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/checkresult"
	"github.com/llm-replay/replay/report"
	"github.com/llm-replay/replay/require"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/runner"
)

// pairedPage is compare.html's data. Its first screen answers the run's question: each B's
// verdict, the limits it was held to (the --require terms by endpoint, else the --slo
// goodput), the behaviour checks side by side, and the distribution of the per-request
// differences; the tests' details and the unpaired comparison follow.
type pairedPage struct {
	Pairs      []pairedComparison
	Confidence string
	Labels     []string
	// Limits is the --require grid, SLO the --slo one (when there is no --require); neither
	// when the run had none.
	Limits []limitRow
	SLO    []sloRow
	Checks template.HTML
	// Media is each media population's latency at every endpoint; nil for a run without media.
	Media []mediaRow
	// Groups is each SLO class's and served model's figures at every endpoint; nil without.
	Groups []mediaRow
	// FontCSS embeds the plots' font; NoFont (tests) leaves it out.
	FontCSS   template.CSS
	ChecksCSS template.CSS
}

// limitRow is one --require term across the endpoints.
type limitRow struct {
	Term, Limit string
	Cells       []limitCell
}

// limitCell is one endpoint's outcome of a term; NA where it was not judged there (a delta
// term on A, which is what the Bs are compared with).
type limitCell struct {
	require.Outcome
	NA bool
}

// sloRow is one --slo limit with the share of each endpoint's requests that met it.
type sloRow struct {
	Name  string
	Limit string
	Met   []string
}

// limitGrid lays the endpoints' requirement outcomes out by term, in the order given.
func limitGrid(labels []string, ers []endpointRequirements) []limitRow {
	col := map[string]int{}
	for i, l := range labels {
		col[l] = i
	}
	var rows []limitRow
	at := map[string]int{}
	for _, er := range ers {
		for _, o := range er.Outcomes {
			k, ok := at[o.Term+o.Limit]
			if !ok {
				k = len(rows)
				at[o.Term+o.Limit] = k
				r := limitRow{Term: o.Term, Limit: o.Limit, Cells: make([]limitCell, len(labels))}
				for i := range r.Cells {
					r.Cells[i].NA = true
				}
				rows = append(rows, r)
			}
			rows[k].Cells[col[er.Label]] = limitCell{Outcome: o}
		}
	}
	return rows
}

// sloGrid is the --slo goodput of every endpoint, nil when the run had no SLO.
func sloGrid(eps []runner.EndpointResult) []sloRow {
	g := eps[0].Summary.Goodput
	if g == nil {
		return nil
	}
	var rows []sloRow
	for _, k := range analysis.SLONames() {
		lim, ok := g.LimitsMS[k]
		if !ok {
			continue
		}
		r := sloRow{Name: k, Limit: fmt.Sprintf("%g ms", lim)}
		for _, e := range eps {
			r.Met = append(r.Met, metPct(e.Summary, k))
		}
		rows = append(rows, r)
	}
	all := sloRow{Name: "all of them"}
	for _, e := range eps {
		all.Met = append(all.Met, metPct(e.Summary, ""))
	}
	return append(rows, all)
}

// mediaRow is one media population (analysis.MediaPopulations) across the endpoints.
type mediaRow struct {
	Name  string
	Cells []string
}

// mediaGrid lays each endpoint's media populations side by side: TTFT p50 / p95 where the
// population streamed, else e2e, with its request count; nil when no endpoint's requests
// carried media.
func mediaGrid(eps []runner.EndpointResult) []mediaRow {
	var rows []mediaRow
	for _, name := range analysis.MediaPopulations {
		r := mediaRow{Name: name}
		seen := false
		for _, e := range eps {
			cell := "-"
			if e.Summary == nil {
				r.Cells = append(r.Cells, cell)
				continue
			}
			if md := e.Summary.Media; md != nil {
				if p, ok := md.Populations[name]; ok {
					seen = true
					cell = fmt.Sprintf("e2e %s / %s ms (%d)", analysis.FormatMS(p.E2E.P50), analysis.FormatMS(p.E2E.P95), p.Requests)
					if p.TTFT != nil {
						cell = fmt.Sprintf("ttft %s / %s ms (%d)", analysis.FormatMS(p.TTFT.P50), analysis.FormatMS(p.TTFT.P95), p.Requests)
					}
				}
			}
			r.Cells = append(r.Cells, cell)
		}
		if seen {
			rows = append(rows, r)
		}
	}
	return rows
}

// groupGrid lays each endpoint's SLO classes and served models side by side: TTFT p95 and
// goodput at the class's limits; nil when no endpoint's rows named a class or model.
func groupGrid(eps []runner.EndpointResult) []mediaRow {
	names := map[string]bool{}
	for _, e := range eps {
		if e.Summary == nil {
			continue
		}
		for k := range e.Summary.SLOClasses {
			names["class "+k] = true
		}
		for k := range e.Summary.Models {
			names["model "+k] = true
		}
	}
	var rows []mediaRow
	for _, name := range slices.Sorted(maps.Keys(names)) {
		r := mediaRow{Name: name}
		for _, e := range eps {
			cell := "-"
			if e.Summary != nil {
				gs := e.Summary.Models
				key, isClass := strings.CutPrefix(name, "class ")
				if isClass {
					gs = e.Summary.SLOClasses
				} else {
					key = strings.TrimPrefix(name, "model ")
				}
				if g, ok := gs[key]; ok {
					cell = fmt.Sprintf("%d req, ttft p95 %s ms", g.Requests, analysis.FormatMS(g.TTFT.P95))
					if g.Goodput != nil {
						cell += fmt.Sprintf(", goodput %.1f%%", g.Goodput.AllPct)
					}
				}
			}
			r.Cells = append(r.Cells, cell)
		}
		rows = append(rows, r)
	}
	return rows
}

// metPct is the share of s's requests that met the SLO named ("" for all of them).
func metPct(s *analysis.Summary, name string) string {
	if s.Goodput == nil {
		return "-"
	}
	v := s.Goodput.AllPct
	if name != "" {
		var ok bool
		if v, ok = s.Goodput.MetPct[name]; !ok {
			return "-"
		}
	}
	return fmt.Sprintf("%.1f%%", v)
}

// checksColumns are the endpoints' behaviour checks for the side-by-side views; nil when no
// endpoint had any.
func checksColumns(eps []runner.EndpointResult) []checkresult.Endpoint {
	var cols []checkresult.Endpoint
	any := false
	for _, e := range eps {
		cols = append(cols, analysis.ChecksEndpoint(e.Label, e.Checks))
		any = any || e.Checks != nil && len(e.Checks.Results) > 0
	}
	if !any {
		return nil
	}
	return cols
}

// writePairedHTML writes compare.html, self-contained (the plots' font embedded).
func writePairedHTML(w io.Writer, page pairedPage) error {
	page.Confidence = percent(PairedConfidence)
	page.ChecksCSS = report.ChecksCSS
	if err := pairedTmpl.Execute(w, page); err != nil {
		return fmt.Errorf("render %s: %w", runfolder.CompareReport, err)
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

var pairedHTML = report.PageHeadUnstyled(`replay paired run`) + `body{font-family:"Liberation Sans",Arial,Helvetica,sans-serif;max-width:1200px;margin:16px auto;padding:0 16px;color:#222}
h1{font-size:21px;margin:0 0 6px}
h2{font-size:16px;margin:14px 0 4px}
table{border-collapse:collapse;margin:4px 0 10px;font-size:13px}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:right;font-variant-numeric:tabular-nums}
th{background:#f4f6f8}
th:first-child,td:first-child,td.l{text-align:left}
td.pass{color:#1a7f37}
td.fail{color:#b00;font-weight:bold}
td.na{color:#999}
.verdict{font-size:16px;font-weight:bold;padding:6px 10px;margin:6px 0;background:#f4f6f8;border-left:4px solid #1f77b4}
.verdict.claim{border-left-color:#d62728}
.bad{color:#b00}
.note{color:#555;font-size:12px}
.row{display:flex;gap:24px;flex-wrap:wrap;align-items:flex-start}
.row>div{flex:1 1 420px;min-width:0}
figure{margin:0}
figure svg{width:100%;height:auto;display:block}
figcaption{color:#555;font-size:12px}
{{.ChecksCSS}}</style>
</head>
<body>
<h1>replay paired run: {{range $i, $l := .Labels}}{{if $i}} vs {{end}}{{$l}}{{end}}</h1>
{{range .Pairs}}<p id="verdict-{{.B}}" class="verdict{{if not (same .Direction)}} claim{{end}}">A = {{.A}}, B = {{.B}}: {{.Verdict}}</p>
{{end}}<div class="row">
<div id="limits">{{if .Limits}}<h2>Limits (--require)</h2>
<table>
<tr><th>term</th><th>limit</th>{{range .Labels}}<th>{{.}}</th>{{end}}</tr>
{{range .Limits}}<tr><td>{{.Term}}</td><td>{{.Limit}}</td>{{range .Cells}}{{if .NA}}<td class="na" title="a delta is B against A">-</td>{{else}}<td class="{{if .Pass}}pass{{else}}fail{{end}}"{{with .Reason}} title="{{.}}"{{end}}>{{if .Pass}}pass{{else}}FAIL{{end}} {{.Value}}{{with .Reason}}<br><span class="note">{{.}}</span>{{end}}</td>{{end}}{{end}}</tr>
{{end}}</table>
{{else if .SLO}}<h2>SLO (--slo): requests meeting each limit</h2>
<table>
<tr><th>SLO</th><th>limit</th>{{range .Labels}}<th>{{.}}</th>{{end}}</tr>
{{range .SLO}}<tr><td>{{.Name}}</td><td>{{.Limit}}</td>{{range .Met}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
<p class="note">No --require was given, so nothing passes or fails here: <code>--require 'goodput&gt;=95%,delta.ttft.p95&lt;=+10%'</code> gates the run (exit 4).</p>
{{else}}<h2>Limits</h2><p class="note">No --slo or --require was given: <code>--require 'ttft.p95&lt;=500ms,delta.ttft.p95&lt;=+10%,checks'</code> judges every endpoint and each B against A (exit 4 when one fails).</p>
{{end}}</div>
{{if .Groups}}<div id="groups"><h2>SLO classes and served models</h2>
<table>
<tr><th>group</th>{{range .Labels}}<th>{{.}}</th>{{end}}</tr>
{{range .Groups}}<tr><td>{{.Name}}</td>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
<p class="note">Each endpoint's SLO classes (--slo-class-by, each at its --slo-class limits) and served models (--model-map), from its summary.json.</p>
</div>{{end}}
{{if .Media}}<div id="media"><h2>Media: p50 / p95 by what the requests carried</h2>
<table>
<tr><th>carried</th>{{range .Labels}}<th>{{.}}</th>{{end}}</tr>
{{range .Media}}<tr><td>{{.Name}}</td>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
<p class="note">Each endpoint's requests by the media they carried (summary.json media.populations): an image costs a vision-encoder pass and its tokens' prefill, so text-only requests can hide what images cost.</p>
</div>{{end}}
<div id="checks"><h2>Behaviour checks</h2>
{{if .Checks}}{{.Checks}}<p class="note">Probed before the warmup, each endpoint alone; overload over every answer of the run. They change the exit code only under --require checks.</p>{{else}}<p class="note">Not run (--checks none).</p>{{end}}
</div>
</div>
{{range .Pairs}}{{$b := .B}}<section>
<div class="row" id="deltas-{{.B}}">{{range .Figures}}<div><figure id="{{.ID}}-{{$b}}">{{.SVG}}<figcaption>{{.Caption}}</figcaption></figure></div>{{end}}</div>
<h2>A = {{.A}}, B = {{.B}}: per request, B - A</h2>
<table>
<tr><td class="l">A</td><td class="l">{{.A}}</td><td class="l">{{.AEndpoint}}</td><td class="l">{{.AModel}}</td><td class="l"><a href="{{.ReportA}}">report</a></td></tr>
<tr><td class="l">B</td><td class="l">{{.B}}</td><td class="l">{{.BEndpoint}}</td><td class="l">{{.BModel}}</td><td class="l"><a href="{{.ReportB}}">report</a></td></tr>
</table>
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

// labelList is the endpoints' labels in order.
func labelList(eps []runner.EndpointResult) []string {
	ls := make([]string, len(eps))
	for i, e := range eps {
		ls[i] = e.Label
	}
	return ls
}

// checksHTMLOf is the side-by-side table, "" for no checks.
func checksHTMLOf(eps []checkresult.Endpoint) template.HTML {
	if eps == nil {
		return ""
	}
	return checkresult.HTML(eps)
}
