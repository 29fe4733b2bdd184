package require

import (
	"strings"
	"testing"

	"github.com/llm-replay/replay/analysis"
)

// TestClassTerms: a class's goodput and latency are judged on its section, the value's case
// and dots kept; a served model is found too; a missing class says which there are.
func TestClassTerms(t *testing.T) {
	s := &analysis.Summary{
		SLOClasses: map[string]analysis.Group{"gpt-4o": {Requests: 4, Goodput: &analysis.Goodput{AllPct: 75}, TTFT: analysis.Dist{Count: 4, P95: 280}}},
		Models:     map[string]analysis.Group{"Qwen/Qwen2.5-7B": {Requests: 2, Goodput: &analysis.Goodput{AllPct: 100}, E2E: analysis.Dist{Count: 2, P50: 900}}},
	}
	for expr, pass := range map[string]bool{
		"gpt-4o.goodput>=99%":          false,
		"gpt-4o.goodput>=75%":          true,
		"GPT-4o.goodput>=1%":           false, // no such class: values keep their case
		"gpt-4o.ttft.p95<=300ms":       true,
		"Qwen/Qwen2.5-7B.goodput>=99%": true,
		"Qwen/Qwen2.5-7B.e2e.p50<=1s":  true,
	} {
		reqs, err := Parse(expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		if reqs[0].String() != expr {
			t.Errorf("%s printed back as %s", expr, reqs[0])
		}
		o := reqs[0].Check(s)
		if o.Pass != pass {
			t.Errorf("%s: pass %v (%+v)", expr, o.Pass, o)
		}
	}
	reqs, _ := Parse("batch.goodput>=99%")
	if o := reqs[0].Check(s); o.Pass || !strings.Contains(o.Reason, "gpt-4o") {
		t.Errorf("missing class: %+v", o)
	}
	if _, err := Parse("chat.tpot.p95<=1s"); err == nil {
		t.Error("a class term of a distribution classes lack parsed")
	}
}
