package analysis

import (
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
