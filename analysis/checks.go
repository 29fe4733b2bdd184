package analysis

import (
	"html/template"

	"github.com/llm-replay/replay/checkresult"
)

// Checks is one endpoint's behaviour checks in a run (`replay run --checks`): the probes sent
// before its warmup (checks.Run), then the overload check over every answer of the run
// (checks.Overload on the rows' statuses and Retry-After). summary.json holds it as
// run.checks, so `replay report` keeps it when it rebuilds the summary from the rows. A failed
// check is a finding about the endpoint, like a failed request: it changes no exit code unless
// `--require checks` asks for it.
type Checks struct {
	// Level is the --checks level that chose the probes (basic, all).
	Level   string               `json:"level"`
	Results []checkresult.Result `json:"results"`
	// Failed names the checks whose verdict is fail, in Results' order; empty when all passed
	// (or were skipped).
	Failed []string `json:"failed,omitempty"`
}

// NewChecks is the Checks of results probed at level, Failed filled in.
func NewChecks(level string, results []checkresult.Result) *Checks {
	c := &Checks{Level: level, Results: results}
	c.judge()
	return c
}

// Add appends a Result (the overload check, once the run's answers are in) and judges again.
func (c *Checks) Add(r checkresult.Result) {
	c.Results = append(c.Results, r)
	c.judge()
}

func (c *Checks) judge() {
	c.Failed = nil
	for _, r := range c.Results {
		if r.Verdict() == checkresult.VerdictFail {
			c.Failed = append(c.Failed, r.Name)
		}
	}
}

// ChecksEndpoint is one endpoint's column of the side-by-side views (checkresult.WriteText,
// checkresult.HTML): its results under its label, none when the run had no checks.
func ChecksEndpoint(label string, c *Checks) checkresult.Endpoint {
	ep := checkresult.Endpoint{Label: label}
	if c != nil {
		ep.Results = c.Results
	}
	return ep
}

// checksHTML is report.html's section body: the table, or why there is none.
func checksHTML(s *Summary) template.HTML {
	if s.Run.Checks == nil || len(s.Run.Checks.Results) == 0 {
		return ""
	}
	return checkresult.HTML([]checkresult.Endpoint{ChecksEndpoint(s.Run.Endpoint, s.Run.Checks)})
}

// checksCSS styles the checks table's cells by verdict, on every page that shows one.
const checksCSS = `table.checks td{text-align:left;vertical-align:top}
table.checks td.pass{color:#1a7f37}
table.checks td.fail{color:#b00;font-weight:bold}
table.checks td.skipped,table.checks td.none{color:#777}
table.checks details{font-weight:normal;color:#444;font-size:12px;max-width:420px}
table.checks code{white-space:pre-wrap;word-break:break-all}
`
