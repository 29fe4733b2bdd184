package require

import (
	"slices"
	"testing"

	"github.com/llm-replay/replay/analysis"
)

// FuzzParseRequire: any input either fails or parses to requirements that format back to an
// expression parsing to the same list, and that can be checked against any summary.
func FuzzParseRequire(f *testing.F) {
	f.Add("ttft.p95<=500ms,itl.p99<=60ms,e2e.p50<=8s,goodput>=95%,errors<=1%,fidelity.prompt>=100%")
	f.Add("delta.ttft.p95<=+10%,delta.e2e.p50<=-50ms")
	f.Add("checks,checks.tool_calls,CHECKS.stop")
	f.Fuzz(func(t *testing.T, expr string) {
		reqs, err := Parse(expr)
		if err != nil {
			return
		}
		text := Format(reqs)
		back, err := Parse(text)
		if err != nil || !slices.Equal(back, reqs) {
			t.Fatalf("%q -> %q -> %+v, %v (first %+v)", expr, text, back, err, reqs)
		}
		CheckAll(reqs, requireRun(), requireRun())
		CheckAll(reqs, &analysis.Summary{}, nil)
	})
}
