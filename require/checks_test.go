package require

import (
	"strings"
	"testing"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/checkresult"
)

// withChecks is requireRun with behaviour checks: stop failed, overload skipped, the others
// passed; tool_calls was not run (--checks basic).
func withChecks() *analysis.Summary {
	s := requireRun()
	s.Run.Checks = analysis.NewChecks(checkresult.LevelBasic, []checkresult.Result{
		{Name: checkresult.Streaming, Pass: 1},
		{Name: checkresult.Stop, Pass: 1, Fail: 1, Examples: []string{"the output holds the stop string"}},
		{Name: checkresult.Sampling, Pass: 5},
		{Name: checkresult.OverloadCheck, Skipped: "no 429 or 503 among 200 answers"},
	})
	return s
}

// TestRequireChecks: "checks" fails on a failed check and names it, passes when none failed
// (a skipped one is not held against it); "checks.<name>" fails on that check's failure, on
// its being skipped and on its absence, each with the reason; a run without checks fails them
// all, saying how to get them.
func TestRequireChecks(t *testing.T) {
	runRequireCases(t, withChecks(), nil, []requireCase{
		{"checks", false, "failed: stop", ""},
		{"checks.stop", false, "1 of 2 passed", ""},
		{"checks.streaming", true, "1 of 1 passed", ""},
		{"CHECKS.Sampling", true, "5 of 5 passed", ""},
		{"checks.overload", false, "skipped", "no 429 or 503"},
		{"checks.tool_calls", false, "-", "was not run (--checks basic"},
	})
	ok := withChecks()
	ok.Run.Checks.Results[1] = checkresult.Result{Name: checkresult.Stop, Pass: 2}
	ok.Run.Checks = analysis.NewChecks(checkresult.LevelBasic, ok.Run.Checks.Results)
	runRequireCases(t, ok, nil, []requireCase{{"checks", true, "3 passed, 0 failed, 1 skipped", ""}})
	runRequireCases(t, requireRun(), nil, []requireCase{
		{"checks", false, "-", "no behaviour checks in the run"},
		{"checks.stop", false, "-", "no behaviour checks in the run"},
	})
	// A paired B is judged on its own checks.
	runRequireCases(t, withChecks(), ok, []requireCase{{"checks", false, "failed: stop", ""}})
}

// TestParseChecks: the terms take no comparison, format back as written, and an
// unknown check or a comparison is an error naming the term.
func TestParseChecks(t *testing.T) {
	reqs, err := Parse("checks, checks.tool_calls ,ttft.p95<=500ms")
	if err != nil {
		t.Fatal(err)
	}
	if got := Format(reqs); got != "checks,checks.tool_calls,ttft.p95<=500ms" {
		t.Errorf("formatted %q", got)
	}
	for expr, want := range map[string]string{
		"checks.speed":                `requirement 1 "checks.speed": unknown behaviour check "speed"`,
		"checks==1":                   `requirement 1 "checks==1": checks takes no comparison`,
		"ttft.p95<=1s,checks.stop>=1": `requirement 2 "checks.stop>=1": checks.stop takes no comparison`,
	} {
		if _, err := Parse(expr); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", expr, err, want)
		}
	}
	bad := Requirement{Term: "checks", Op: "<=", Limit: 1}
	if o := bad.Check(withChecks()); o.Pass || !strings.Contains(o.Reason, "takes no comparison") {
		t.Errorf("by hand %+v: %+v", bad, o)
	}
}
