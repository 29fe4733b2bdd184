package require

import (
	"fmt"
	"strings"

	"github.com/llm-replay/replay/stats"
)

// Requirement is one limit (a term of --require on the command line), e.g. ttft.p95<=500ms:
// a run passes it when the term's value compares to Limit (in Unit) as Op says. Requirements
// gate a run (or a comparison) in CI, so every one either holds, fails, or fails with a reason
// why it could not be judged; none is skipped.
type Requirement struct {
	// Term is the canonical term name: <metric>.<stat>, goodput, errors, fidelity.prompt,
	// fidelity.output, throughput.req_s, throughput.output_tok_s or delta.<metric>.<stat>.
	Term string `json:"term"`
	// Op is one of <=, <, >=, >, ==.
	Op string `json:"op"`
	// Limit is the number as written, in Unit.
	Limit float64 `json:"limit"`
	// Unit is ns, us, ms, s or m for a duration, % for a percentage, "" for a count (errors)
	// or a plain number (throughput). Parsing fills in the unit a bare number means (ms for a
	// latency, % for goodput and fidelity), so String always spells it out.
	Unit string `json:"unit"`
}

// requireOps are the comparisons, longest first so that "<=" is not read as "<".
var requireOps = []string{"<=", ">=", "==", "<", ">"}

// Parse reads a requirement expression (--require): a comma list of requirements such as
// "ttft.p95<=500ms,goodput>=95%,errors<=1%,delta.ttft.p95<=+10%". Terms are case-insensitive
// and spaces around the parts are ignored. An empty expression requires nothing. An error
// names the term by its position and says what was expected.
func Parse(expr string) ([]Requirement, error) {
	if strings.TrimSpace(expr) == "" {
		return nil, nil
	}
	var reqs []Requirement
	for i, item := range strings.Split(expr, ",") {
		r, err := parseRequirement(strings.TrimSpace(item))
		if err != nil {
			return nil, fmt.Errorf("requirement %d %q: %w", i+1, strings.TrimSpace(item), err)
		}
		reqs = append(reqs, r)
	}
	return reqs, nil
}

// parseRequirement reads one "<term><op><limit>".
func parseRequirement(item string) (Requirement, error) {
	if item == "" {
		return Requirement{}, fmt.Errorf("empty term (want e.g. ttft.p95<=500ms)")
	}
	at := strings.IndexAny(item, "<>=!")
	if at < 0 {
		if t, ok, err := parseChecksTerm(strings.ToLower(item)); ok {
			return Requirement{Term: t.String()}, err // a behaviour check: no comparison
		}
		return Requirement{}, fmt.Errorf("no comparison (want <=, <, >=, > or ==, e.g. ttft.p95<=500ms)")
	}
	t, err := parseAnyTerm(strings.TrimSpace(item[:at]))
	if err != nil {
		return Requirement{}, err
	}
	if t.kind == kindChecks {
		return Requirement{}, fmt.Errorf("%s takes no comparison: write %s alone (it holds when the check passed)", t, t)
	}
	op := opPrefix(item[at:])
	if op == "" {
		return Requirement{}, fmt.Errorf("unknown comparison in %q (want <=, <, >=, > or ==)", item[at:])
	}
	v, unit, err := parseLimit(strings.TrimSpace(item[at+len(op):]))
	if err != nil {
		return Requirement{}, err
	}
	r := Requirement{Term: t.String(), Op: op, Limit: v, Unit: unit}
	r.Unit, err = t.unitFor(r.Unit, r.Limit)
	return r, err
}

// opPrefix is the comparison s starts with, "" if none.
func opPrefix(s string) string {
	for _, op := range requireOps {
		if strings.HasPrefix(s, op) {
			return op
		}
	}
	return ""
}

// String formats the requirement the way Parse reads it back.
func (r Requirement) String() string {
	if r.Op == "" && r.isChecks() {
		return r.Term
	}
	return r.Term + r.Op + r.limitText()
}

// isChecks reports whether the term is a behaviour check's, which has no comparison.
func (r Requirement) isChecks() bool {
	return r.Term == "checks" || strings.HasPrefix(r.Term, "checks.")
}

// limitText is the limit as written: a delta always carries its sign.
func (r Requirement) limitText() string { return formatLimit(r.Limit, r.isDelta()) + r.Unit }

func (r Requirement) isDelta() bool { return strings.HasPrefix(r.Term, "delta.") }

// IsDelta reports whether the requirement compares two runs (delta.<metric>.<stat>), so it
// needs a baseline run (A) to be judged.
func (r Requirement) IsDelta() bool { return r.isDelta() }

// Format joins requirements into an expression Parse reads back.
func Format(reqs []Requirement) string {
	parts := make([]string, len(reqs))
	for i, r := range reqs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// term checks a requirement, parsed or built by hand, and returns its parsed term.
func (r Requirement) term() (term, error) {
	t, err := parseAnyTerm(r.Term)
	if err != nil {
		return t, err
	}
	if t.kind == kindChecks {
		if r.Op != "" || r.Limit != 0 || r.Unit != "" {
			return t, fmt.Errorf("%s takes no comparison, limit or unit", t)
		}
		return t, nil
	}
	if opPrefix(r.Op) != r.Op || r.Op == "" {
		return t, fmt.Errorf("unknown comparison %q (want <=, <, >=, > or ==)", r.Op)
	}
	if !stats.IsFinite(r.Limit) {
		return t, fmt.Errorf("limit %v: want a finite number", r.Limit)
	}
	unit, err := t.unitFor(r.Unit, r.Limit)
	if err == nil && unit != r.Unit {
		err = fmt.Errorf("limit %v with no unit: want %v%s", r.Limit, r.Limit, unit)
	}
	return t, err
}
