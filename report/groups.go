package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/llm-replay/replay/analysis"
)

// groups.go sets a run's SLO classes (--slo-class-by) and served models (--model-map) side by
// side, as summary.json's slo_classes and models hold them: each group's requests, goodput
// at its own limits and latencies, so that a mixed endpoint's small model does not hide its
// big one, nor a batch class an interactive one.

// groupRow is one class's or model's line.
type groupRow struct {
	Name string
	G    analysis.Group
}

// groupRows are a group map's lines by name.
func groupRows(gs map[string]analysis.Group) []groupRow {
	var rows []groupRow
	for _, k := range slices.Sorted(maps.Keys(gs)) {
		rows = append(rows, groupRow{k, gs[k]})
	}
	return rows
}

// goodputCell is a group's goodput ("-" without limits), with the limits it was judged by.
func goodputCell(g analysis.Group) string {
	if g.Goodput == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f%% (%s)", g.Goodput.AllPct, g.Goodput.SLO)
}

// groupsTable is the terminal's table of one group map, headed by what the groups are.
func groupsTable(what string, gs map[string]analysis.Group) string {
	if len(gs) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-16s %8s %8s %8s %10s %10s %10s %10s  %s\n", what, "requests", "ok", "failed", "ttft p50", "ttft p95", "itl p95", "e2e p95", "goodput")
	for _, r := range groupRows(gs) {
		g := r.G
		fmt.Fprintf(&b, "%-16s %8d %8d %8d %10s %10s %10s %10s  %s\n", r.Name, g.Requests, g.OK, g.Failed,
			analysis.FormatMS(g.TTFT.P50), analysis.FormatMS(g.TTFT.P95), analysis.FormatMS(g.ITL.P95), analysis.FormatMS(g.E2E.P95), goodputCell(g))
	}
	b.WriteString("\n")
	return b.String()
}

// groupsHTML is report.html's section of the SLO classes and served models.
const groupsHTML = `{{if .GroupTables}}<h2 id="groups">SLO classes and models</h2>
{{range $t := .GroupTables}}<table>
<tr><th>{{$t.What}}</th><th>requests</th><th>ok</th><th>failed</th><th>ttft p50</th><th>ttft p95</th><th>itl p95</th><th>e2e p95</th><th>goodput (limits)</th></tr>
{{range $t.Rows}}<tr><td>{{.Name}}</td><td>{{.G.Requests}}</td><td>{{.G.OK}}</td><td{{if .G.Failed}} class="bad"{{end}}>{{.G.Failed}}</td><td>{{ms .G.TTFT.P50}}</td><td>{{ms .G.TTFT.P95}}</td><td>{{ms .G.ITL.P95}}</td><td>{{ms .G.E2E.P95}}</td><td>{{goodput .G}}</td></tr>
{{end}}</table>
{{end}}<p class="note">Each SLO class (--slo-class-by) judged by its own --slo-class limits, else the run's --slo; each served model (--model-map) by the run's. Latencies in ms over each group's successful requests.</p>
{{end}}`

// classTable is one of the section's tables.
type classTable struct {
	What string
	Rows []groupRow
}

// classTables are the section's tables: classes, then models.
func classTables(s *analysis.Summary) []classTable {
	var out []classTable
	if len(s.SLOClasses) > 0 {
		out = append(out, classTable{"SLO class", groupRows(s.SLOClasses)})
	}
	if len(s.Models) > 0 {
		out = append(out, classTable{"served model", groupRows(s.Models)})
	}
	return out
}
