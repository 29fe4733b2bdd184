package checkresult

import (
	"html/template"
	"strings"
)

// htmlTable is the report's fragment: a table of checks by endpoint, each cell classed by its
// verdict (pass, fail, skipped) for the report's styles, with what was seen and the examples
// folded under it. html/template escapes every server byte quoted.
var htmlTable = template.Must(template.New("checks").Parse(`<table class="checks">
<thead><tr><th>behaviour check</th>{{range .Labels}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Rows}}
<tr><th>{{.Name}}</th>{{range .Cells}}<td class="{{.Verdict}}">{{.Short}}
{{- if .Detail}}<details><summary>details</summary>{{if .Skipped}}<p>{{.Skipped}}</p>{{end}}{{if .Seen}}<p>{{.Seen}}</p>{{end}}
{{- if .Examples}}<ul>{{range .Examples}}<li><code>{{.}}</code></li>{{end}}</ul>{{end}}</details>{{end -}}
</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
`))

// htmlCell is one cell of htmlTable.
type htmlCell struct {
	Verdict, Short, Seen, Skipped string
	Examples                      []string
	Detail                        bool
}

// HTML is the endpoints' Results as a table for report.html, a column per endpoint.
func HTML(eps []Endpoint) template.HTML {
	type htmlRow struct {
		Name  string
		Cells []htmlCell
	}
	data := struct {
		Labels []string
		Rows   []htmlRow
	}{}
	for _, ep := range eps {
		data.Labels = append(data.Labels, label(ep))
	}
	for _, r := range grid(eps) {
		hr := htmlRow{Name: r.Name}
		for _, c := range r.Cells {
			hr.Cells = append(hr.Cells, cellOf(c))
		}
		data.Rows = append(data.Rows, hr)
	}
	var b strings.Builder
	if err := htmlTable.Execute(&b, data); err != nil {
		return template.HTML("<p>behaviour checks: " + template.HTMLEscapeString(err.Error()) + "</p>")
	}
	return template.HTML(b.String()) // html/template has escaped every value in it
}

// cellOf is a Result's cell; a missing Result is an empty one.
func cellOf(r *Result) htmlCell {
	if r == nil {
		return htmlCell{Verdict: "none", Short: "-"}
	}
	c := htmlCell{Verdict: r.Verdict(), Short: short(r), Seen: r.Seen, Skipped: r.Skipped, Examples: r.Examples}
	c.Detail = c.Seen != "" || c.Skipped != "" || len(c.Examples) > 0
	return c
}
