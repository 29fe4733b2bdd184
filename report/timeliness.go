package report

import (
	"fmt"

	"github.com/llm-replay/replay/analysis"
)

// timeliness is whether the run's requests left on time, in the one judgement the verdict
// makes: "behind" only past the run's send-lateness limit (--max-lateness, the verdict's
// client-bound test), never at the arrivals' stricter 1 ms on-time mark alone, which a run
// can cross with every figure still the endpoint's. The page, the terminal table and the
// live line (package progress, given the same limit) say the same word for the same run.
type timeliness struct {
	// Word is "on time", "behind", "capped" (the run follows its concurrency cap) or
	// "not judged" (--max-lateness none).
	Word string
	Bad  bool
	// Detail says what decided Word, with the finer arrival measure's finding when it
	// differs.
	Detail string
}

// latenessLimitMS is the limit s was judged by: its own, else replay run's default.
func latenessLimitMS(s *analysis.Summary) float64 {
	if s.Run.Limits != nil {
		return s.Run.Limits.MaxLatenessMS
	}
	return analysis.DefaultLimits().MaxLatenessMS
}

func judgeTimeliness(s *analysis.Summary) timeliness {
	a, p99, limit := s.Fidelity.Arrival, s.Lateness.P99, latenessLimitMS(s)
	finer := ""
	if a != nil && a.Verdict == "behind" {
		finer = fmt.Sprintf("; over the %.0f ms on-time mark of the arrival measures (%s)", analysis.OnTimeLatenessMS, a.Why)
	}
	switch {
	case a != nil && a.Verdict == "capped":
		return timeliness{Word: "capped", Detail: a.Why}
	case limit > 0 && p99 > limit:
		return timeliness{Word: "behind", Bad: true,
			Detail: fmt.Sprintf("send lateness p99 %s ms over the %g ms limit (--max-lateness): the figures measure this machine", analysis.FormatMS(p99), limit)}
	case limit <= 0:
		return timeliness{Word: "not judged", Detail: fmt.Sprintf("send lateness p99 %s ms, no limit (--max-lateness none)%s", analysis.FormatMS(p99), finer)}
	}
	return timeliness{Word: "on time", Detail: fmt.Sprintf("send lateness p99 %s ms within the %g ms limit%s", analysis.FormatMS(p99), limit, finer)}
}
