package require

import (
	"fmt"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/stats"
)

// Outcome is one requirement judged: the term, its value and limit as printed, and whether
// it passed. Reason says why a term could not be judged (no SLO, no usage reported, no
// baseline); such a term fails, since a gate that cannot see a figure must not wave it through.
type Outcome struct {
	Term   string `json:"term"`
	Value  string `json:"value"`
	Limit  string `json:"limit"`
	Pass   bool   `json:"pass"`
	Reason string `json:"reason,omitempty"`
}

// Check judges the requirement against one run. A delta term needs two runs (CheckPaired) and
// fails here with a reason.
func (r Requirement) Check(s *analysis.Summary) Outcome {
	o := r.outcome()
	t, err := r.term()
	var v float64
	switch {
	case err != nil:
		o.Reason = err.Error()
	case t.kind == kindChecks:
		return r.checkBehaviour(t, s)
	case t.kind == kindDelta:
		o.Reason = "a delta needs a baseline run (A) to compare with"
	case s == nil:
		o.Reason = "no summary"
	default:
		v, o.Reason = r.measure(t, s)
	}
	if o.Reason == "" {
		o.Value = r.display(v)
		o.Pass = holds(v, r.Op, toBase(r.Limit, r.Unit))
	}
	return o
}

// CheckPaired judges the requirement for run b against the baseline run a: a delta term on
// (B-A)/A in percent (a percentage limit) or B-A (a duration limit); any other term on b alone.
func (r Requirement) CheckPaired(a, b *analysis.Summary) Outcome {
	t, err := r.term()
	if err != nil || t.kind != kindDelta {
		return r.Check(b)
	}
	o := r.outcome()
	va, vb, why := pairedStat(t, a, b)
	v := vb - va
	switch {
	case why != "":
		o.Reason = why
		return o
	case r.Unit == "%" && va == 0:
		o.Reason = fmt.Sprintf("A's %s.%s is 0, so B has no relative change", t.metric, t.stat)
		return o
	case r.Unit == "%":
		v = 100 * (vb - va) / va
	}
	o.Value = fmt.Sprintf("%s (A %sms, B %sms)", r.display(v), stats.Fig(va), stats.Fig(vb))
	o.Pass = holds(v, r.Op, toBase(r.Limit, r.Unit))
	return o
}

// outcome is the requirement's outcome before it is judged: failed, with no value.
func (r Requirement) outcome() Outcome {
	return Outcome{Term: r.Term, Limit: r.Op + r.limitText(), Value: "-"}
}

// CheckAll judges every requirement: delta terms compare s against base (the baseline run,
// A; nil when there is none, and then they fail), the others s alone. ok is whether all passed.
func CheckAll(reqs []Requirement, s, base *analysis.Summary) (outs []Outcome, ok bool) {
	ok = true
	for _, r := range reqs {
		o := r.CheckPaired(base, s)
		ok = ok && o.Pass
		outs = append(outs, o)
	}
	return outs, ok
}
