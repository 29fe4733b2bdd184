package require

import (
	"fmt"
	"slices"
	"strings"
)

// termKind is what a --require term measures, and so which limits it takes.
type termKind uint8

const (
	kindLatency    termKind = iota + 1 // <metric>.<stat>, milliseconds
	kindGoodput                        // goodput, percent
	kindErrors                         // errors, percent or count
	kindFidelity                       // fidelity.prompt / fidelity.output, percent
	kindThroughput                     // throughput.req_s / throughput.output_tok_s, plain
	kindDelta                          // delta.<metric>.<stat>, signed percent or duration
	kindChecks                         // checks, checks.<name>: no comparison (require_checks.go)
)

// requireMetrics are the latency distributions of a Summary a term may name, in the order of
// summary.json.
var requireMetrics = []string{"ttft", "ttft_sched", "ttfat", "itl", "tpot", "e2e", "e2e_sched", "lateness", "queue_wait"}

// requireStats are the statistics of a Dist a term may name.
var requireStats = []string{"p50", "p90", "p95", "p99", "p999", "max", "mean"}

// termNames lists every term shape, for the error on an unknown one.
const termNames = "<metric>.<stat>, goodput, errors, fidelity.prompt, fidelity.output, " +
	"throughput.req_s, throughput.output_tok_s, delta.<metric>.<stat>, checks or checks.<name>"

// term is a parsed --require term name.
type term struct {
	kind         termKind
	metric, stat string // latency and delta: the metric and statistic; fidelity, throughput: which
	// class, when set, is the SLO class or served model whose section the term reads
	// (class.go): goodput and latency terms only.
	class string
}

// parseTerm reads a term name such as "ttft.p95", "goodput" or "delta.e2e.p50" (lower case).
func parseTerm(name string) (term, error) {
	if t, ok, err := parseChecksTerm(name); ok {
		return t, err
	}
	head, rest, dotted := strings.Cut(name, ".")
	switch {
	case name == "goodput":
		return term{kind: kindGoodput}, nil
	case name == "errors":
		return term{kind: kindErrors}, nil
	case head == "fidelity" && (rest == "prompt" || rest == "output"):
		return term{kind: kindFidelity, stat: rest}, nil
	case head == "fidelity":
		return term{}, fmt.Errorf("unknown fidelity figure %q (want prompt or output)", rest)
	case head == "throughput" && (rest == "req_s" || rest == "output_tok_s"):
		return term{kind: kindThroughput, stat: rest}, nil
	case head == "throughput":
		return term{}, fmt.Errorf("unknown throughput figure %q (want req_s or output_tok_s)", rest)
	case head == "delta":
		t, err := parseLatencyTerm(rest)
		t.kind = kindDelta
		return t, err
	case slices.Contains(requireMetrics, head):
		return parseLatencyTerm(name)
	case dotted && strings.Count(name, ".") == 1:
		return term{}, fmt.Errorf("unknown metric %q (want %s)", head, strings.Join(requireMetrics, ", "))
	}
	return term{}, fmt.Errorf("unknown term %q (want %s)", name, termNames)
}

// parseLatencyTerm reads "<metric>.<stat>".
func parseLatencyTerm(name string) (term, error) {
	metric, stat, ok := strings.Cut(name, ".")
	if !ok || strings.Contains(stat, ".") {
		return term{}, fmt.Errorf("want <metric>.<stat>, e.g. ttft.p95, not %q", name)
	}
	if !slices.Contains(requireMetrics, metric) {
		return term{}, fmt.Errorf("unknown metric %q (want %s)", metric, strings.Join(requireMetrics, ", "))
	}
	if !slices.Contains(requireStats, stat) {
		return term{}, fmt.Errorf("unknown statistic %q (want %s)", stat, strings.Join(requireStats, ", "))
	}
	return term{kind: kindLatency, metric: metric, stat: stat}, nil
}

// String is the term's canonical name, the one parseTerm reads back.
func (t term) String() string {
	if t.class != "" {
		c := t
		c.class = ""
		return t.class + "." + c.String()
	}
	switch t.kind {
	case kindLatency:
		return t.metric + "." + t.stat
	case kindDelta:
		return "delta." + t.metric + "." + t.stat
	case kindGoodput:
		return "goodput"
	case kindErrors:
		return "errors"
	case kindFidelity:
		return "fidelity." + t.stat
	case kindThroughput:
		return "throughput." + t.stat
	case kindChecks:
		if t.stat == "" {
			return "checks"
		}
		return "checks." + t.stat
	}
	return ""
}
