package require

import (
	"fmt"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/stats"
)

// measure reads the term's value from one run, in the term's base unit (ms, %, a count or a
// plain number), or says why there is none.
func (r Requirement) measure(t term, s *analysis.Summary) (float64, string) {
	if t.class != "" {
		return measureClass(t, s)
	}
	switch t.kind {
	case kindLatency:
		return latencyStat(s, t, "the run")
	case kindGoodput:
		if s.Goodput == nil {
			return 0, "no SLO in the run: goodput needs one (--slo)"
		}
		return s.Goodput.AllPct, ""
	case kindErrors:
		if r.Unit != "%" {
			return float64(s.Requests.Failed), ""
		}
		if s.Requests.Total == 0 {
			return 0, "no requests in the run"
		}
		return 100 * float64(s.Requests.Failed) / float64(s.Requests.Total), ""
	case kindFidelity:
		p := s.Fidelity.PromptTokensExactPct
		if t.stat == "output" {
			p = s.Fidelity.OutputTokensExactPct
		}
		if p == nil {
			return 0, "no usage reported"
		}
		return *p, ""
	case kindThroughput:
		if s.Requests.Total == 0 {
			return 0, "no requests in the run"
		}
		if t.stat == "req_s" {
			return s.Throughput.ReqS, ""
		}
		return s.Throughput.OutputTokS, ""
	}
	return 0, fmt.Sprintf("term %q is not measured on one run", t)
}

// pairedStat reads a delta term's statistic from both runs.
func pairedStat(t term, a, b *analysis.Summary) (va, vb float64, why string) {
	if a == nil {
		return 0, 0, "a delta needs a baseline run (A) to compare with"
	}
	if b == nil {
		return 0, 0, "no summary"
	}
	if va, why = latencyStat(a, t, "A"); why != "" {
		return
	}
	vb, why = latencyStat(b, t, "B")
	return
}

// latencyStat is one statistic of one latency distribution in ms; a distribution without
// samples (no request got a token, none had two) has no value rather than a zero that would
// pass any upper limit.
func latencyStat(s *analysis.Summary, t term, who string) (float64, string) {
	d := distOf(s, t.metric)
	if d.Count == 0 {
		return 0, fmt.Sprintf("%s has no %s samples", who, t.metric)
	}
	switch t.stat {
	case "p50":
		return d.P50, ""
	case "p90":
		return d.P90, ""
	case "p95":
		return d.P95, ""
	case "p99":
		return d.P99, ""
	case "p999":
		return d.P999, ""
	case "max":
		return d.Max, ""
	case "mean":
		return d.Mean, ""
	}
	return 0, fmt.Sprintf("unknown statistic %q", t.stat)
}

// distOf is the summary's distribution of a requireMetrics name.
func distOf(s *analysis.Summary, metric string) analysis.Dist {
	switch metric {
	case "ttft":
		return s.TTFT
	case "ttft_sched":
		return s.TTFTSched
	case "ttfat":
		return s.TTFAT
	case "itl":
		return s.ITL
	case "tpot":
		return s.TPOT
	case "e2e":
		return s.E2E
	case "e2e_sched":
		return s.E2ESched
	case "lateness":
		return s.Lateness
	case "queue_wait":
		return s.QueueWait
	}
	return analysis.Dist{}
}

// display prints a value of the term's base unit in the requirement's unit, so that it reads
// beside its limit (e2e.p50 7.912s <=8s).
func (r Requirement) display(v float64) string {
	s := stats.Fig(inUnit(v, r.Unit))
	if r.isDelta() && s[0] != '-' {
		s = "+" + s
	}
	return s + r.Unit
}
