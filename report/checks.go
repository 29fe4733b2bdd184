package report

import (
	"html/template"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/checkresult"
)

// checksHTML is report.html's section body: the table, or why there is none.
func checksHTML(s *analysis.Summary) template.HTML {
	if s.Run.Checks == nil || len(s.Run.Checks.Results) == 0 {
		return ""
	}
	return checkresult.HTML([]checkresult.Endpoint{analysis.ChecksEndpoint(s.Run.Endpoint, s.Run.Checks)})
}

// ChecksCSS styles the checks table's cells by verdict, on every page that shows one.
const ChecksCSS = `table.checks td{text-align:left;vertical-align:top}
table.checks td.pass{color:#1a7f37}
table.checks td.fail{color:#b00;font-weight:bold}
table.checks td.skipped,table.checks td.none{color:#777}
table.checks details{font-weight:normal;color:#444;font-size:12px;max-width:420px}
table.checks code{white-space:pre-wrap;word-break:break-all}
`
