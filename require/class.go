package require

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/llm-replay/replay/analysis"
)

// class.go reads the terms that name an SLO class or a served model (summary.json's
// slo_classes and models sections): VALUE.goodput and VALUE.<metric>.<stat> for ttft, itl
// and e2e, e.g. "gpt-4o.goodput>=99%" or "chat.ttft.p95<=300ms". The value keeps its case
// (model names have capitals) and may hold dots (Qwen2.5); a term the run's own figures
// name (ttft.p95, goodput, ...) is never read as a class.

// classMetrics are the distributions a class's section has.
var classMetrics = []string{"ttft", "itl", "e2e"}

// splitClass splits name into its class value and its term (in lower case), when it ends in
// a class term's suffix after a non-empty value.
func splitClass(name string) (class, inner string, ok bool) {
	lower := strings.ToLower(name)
	suffixes := []string{"goodput"}
	for _, m := range classMetrics {
		for _, s := range requireStats {
			suffixes = append(suffixes, m+"."+s)
		}
	}
	for _, s := range suffixes {
		if strings.HasSuffix(lower, "."+s) && len(name) > len(s)+1 {
			return name[:len(name)-len(s)-1], s, true
		}
	}
	return "", "", false
}

// parseAnyTerm reads a term of the run's own figures, else a class's.
func parseAnyTerm(name string) (term, error) {
	t, err := parseTerm(strings.ToLower(name))
	if err == nil {
		return t, nil
	}
	class, inner, ok := splitClass(name)
	if !ok {
		return t, err
	}
	ct, cerr := parseTerm(inner)
	if cerr != nil || (ct.kind != kindGoodput && ct.kind != kindLatency) {
		return t, err
	}
	ct.class = class
	return ct, nil
}

// classGroup is the section of the summary a class term names: its SLO class, else its
// served model; why says why there is none.
func classGroup(s *analysis.Summary, class string) (analysis.Group, string) {
	if g, ok := s.SLOClasses[class]; ok {
		return g, ""
	}
	if g, ok := s.Models[class]; ok {
		return g, ""
	}
	var names []string
	for n := range s.SLOClasses {
		names = append(names, n)
	}
	for n := range s.Models {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return analysis.Group{}, fmt.Sprintf("no SLO class or served model %q: the run has none (--slo-class-by, --model-map)", class)
	}
	return analysis.Group{}, fmt.Sprintf("no SLO class or served model %q in the run (it has %s)", class, strings.Join(names, ", "))
}

// measureClass reads a class term's value from its section.
func measureClass(t term, s *analysis.Summary) (float64, string) {
	g, why := classGroup(s, t.class)
	if why != "" {
		return 0, why
	}
	if t.kind == kindGoodput {
		if g.Goodput == nil {
			return 0, fmt.Sprintf("no limits for %q: goodput needs --slo-class %s:LIMITS or --slo", t.class, t.class)
		}
		return g.Goodput.AllPct, ""
	}
	sub := analysis.Summary{TTFT: g.TTFT, ITL: g.ITL, E2E: g.E2E}
	return latencyStat(&sub, t, t.class)
}
