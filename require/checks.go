package require

import (
	"fmt"
	"slices"
	"strings"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/checkresult"
)

// The behaviour-check terms of --require take no comparison: "checks" holds when no check of
// the run failed (a skipped one, such as overload on a run that never overloaded the endpoint,
// is not held against it), "checks.<name>" when that one check passed, skipped or missing
// failing it, since a gate that asks for one behaviour by name must see it. Without
// --require checks a failed check is reported but changes no exit code.

// checksTermNames are the names "checks.<name>" may carry: every check of checkresult.LevelAll and
// the overload check.
func checksTermNames() []string {
	names, _ := checkresult.Names(checkresult.LevelAll)
	return append(names, checkresult.OverloadCheck)
}

// parseChecksTerm reads "checks" or "checks.<name>" (lower case); ok is false for any other
// name.
func parseChecksTerm(name string) (t term, ok bool, err error) {
	head, rest, dotted := strings.Cut(name, ".")
	if head != "checks" {
		return term{}, false, nil
	}
	if dotted && !slices.Contains(checksTermNames(), rest) {
		return term{}, true, fmt.Errorf("unknown behaviour check %q (want checks, or checks.<name> with a name of %s)", rest, strings.Join(checksTermNames(), ", "))
	}
	return term{kind: kindChecks, stat: rest}, true, nil
}

// checkBehaviour judges a checks term on one run's summary.
func (r Requirement) checkBehaviour(t term, s *analysis.Summary) Outcome {
	o := r.outcome()
	o.Limit = "pass"
	var c *analysis.Checks
	if s != nil {
		c = s.Run.Checks
	}
	if c == nil || len(c.Results) == 0 {
		o.Reason = "no behaviour checks in the run (replay run --checks basic or all probes them)"
		return o
	}
	if t.stat == "" {
		var pass, skipped int
		for _, res := range c.Results {
			switch res.Verdict() {
			case checkresult.VerdictPass:
				pass++
			case checkresult.VerdictSkipped:
				skipped++
			}
		}
		o.Value = fmt.Sprintf("%d passed, %d failed, %d skipped", pass, len(c.Failed), skipped)
		if len(c.Failed) > 0 {
			o.Value = "failed: " + strings.Join(c.Failed, ", ")
		}
		o.Pass = len(c.Failed) == 0
		return o
	}
	res := checkResult(c, t.stat)
	switch {
	case res == nil:
		o.Reason = fmt.Sprintf("the %s check was not run (--checks %s; --checks all runs every probe)", t.stat, c.Level)
	case res.Verdict() == checkresult.VerdictSkipped:
		o.Value = checkresult.VerdictSkipped
		o.Reason = res.Skipped
	default:
		o.Value = fmt.Sprintf("%d of %d passed", res.Pass, res.Pass+res.Fail)
		o.Pass = res.Verdict() == checkresult.VerdictPass
	}
	return o
}

// checkResult is the Result of the check named, nil when it was not run.
func checkResult(c *analysis.Checks, name string) *checkresult.Result {
	for i := range c.Results {
		if c.Results[i].Name == name {
			return &c.Results[i]
		}
	}
	return nil
}
