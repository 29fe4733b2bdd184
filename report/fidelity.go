package report

import (
	"fmt"

	"github.com/llm-replay/replay/analysis"
)

// fidelityRow is one line of report.html's fidelity table: a question a reader asks of a
// replay (did the endpoint see the logged lengths? did requests leave on time, at the logged
// rate? did the prefix cache behave as the trace would have it? were sessions kept?) and the
// run's answer. The internal measures behind them are folded under the table.
type fidelityRow struct {
	Check, Value string
	Bad          bool
}

// fidelityRows are the fidelity table's lines, at most seven: the lengths, the schedule, the
// cache, for a run whose log gave the thinking split that split, and for a run with sessions
// their gating.
func fidelityRows(s *analysis.Summary) []fidelityRow {
	f := s.Fidelity
	out := "output tokens exactly as targeted"
	if f.Unforced > 0 {
		out += fmt.Sprintf(" (of the forced requests; %d sent unforced)", f.Unforced)
	}
	outRow := fidelityRow{Check: out, Value: fmtPct(f.OutputTokensExactPct)}
	if e := s.Run.Engine; e != nil && !e.Forced {
		outRow.Value += ": output not forced, lengths are the engine's own"
		outRow.Bad = true
	}
	tl := judgeTimeliness(s)
	rows := []fidelityRow{
		{Check: "prompt tokens exactly as targeted", Value: fmtPct(f.PromptTokensExactPct)},
		outRow,
		{Check: "requests left on time (send lateness p99)", Value: tl.Word + ": " + tl.Detail, Bad: tl.Bad},
	}
	if a := f.Arrival; a != nil {
		rows = append(rows, fidelityRow{Check: "arrival rate kept", Value: rateKept(a)})
	}
	rows = append(rows, fidelityRow{Check: "prefix-cache hit rate against the trace's ideal", Value: cacheAgainstIdeal(s.Cache)})
	if r := s.Reasoning; r != nil && r.Logged > 0 {
		rows = append(rows, fidelityRow{Check: "thinking tokens as logged (the total is forced; the split is the engine's, bounded on vLLM by thinking_token_budget)",
			Value: fmt.Sprintf("%s of %d requests whose log gave the split", fmtPct(r.SplitExactPct), r.Logged),
			Bad:   r.SplitExactPct == nil || *r.SplitExactPct < 99})
	}
	if ss := s.Sessions; ss != nil {
		rows = append(rows, fidelityRow{Check: "sessions gated on their answers",
			Value: fmt.Sprintf("%d later turns each sent after the previous answer, in %d multi-turn sessions of %d", ss.LaterTurns, ss.MultiTurn, ss.Sessions)})
	}
	return rows
}

// rateKept says how closely the sends followed the trace's rate, second by second, and kept
// its bursts together.
func rateKept(a *analysis.Arrival) string {
	if a.Verdict == "capped" {
		return fmt.Sprintf("capped: the run follows its concurrency cap (%d requests waited, queue wait p99 %.1f ms)", a.Queued, a.QueueWaitP99MS)
	}
	v := "n/a (a run under two seconds)"
	if a.RateMaxDevReqS != nil {
		v = fmt.Sprintf("within %.2f req/s of the schedule in every second (%.1f%% of the mean rate)", *a.RateMaxDevReqS, *a.RateMaxDevPct)
	}
	if a.BurstsKeptPct != nil {
		v += fmt.Sprintf("; %.1f%% of %d bursts left together", *a.BurstsKeptPct, a.Bursts)
	}
	return v
}

// cacheAgainstIdeal sets the measured hit rate (from usage, else the server's counters)
// beside the trace's ideal.
func cacheAgainstIdeal(c analysis.Cache) string {
	measured := fmtPct(c.HitPct) + " from usage"
	switch {
	case c.HitPct == nil && c.ServerHitPct != nil:
		measured = fmtPct(c.ServerHitPct) + " from the server's /metrics"
	case c.HitPct == nil:
		measured = "not measured (no usage reported, no server counters)"
	}
	if c.IdealHitPct == nil {
		return measured + "; no ideal (the trace's block hashes unknown)"
	}
	return fmt.Sprintf("%s against %s ideal (infinite cache)", measured, fmtPct(c.IdealHitPct))
}

// reasoningLine is the terminal's line on thinking: how many requests thought, the share of
// output, the ITL of each kind and the split against the log's; "" when nothing thought.
func reasoningLine(s *analysis.Summary) string {
	r := s.Reasoning
	if r == nil {
		return ""
	}
	line := fmt.Sprintf("reasoning   %d requests thought (%d never answered): %s of output tokens; ttfat p50 %s ms; itl thinking p50 %s ms, answer p50 %s ms",
		r.Requests, r.NeverAnswered, fmtPct(r.SharePct), analysis.FormatMS(s.TTFAT.P50), analysis.FormatMS(r.ITLThinking.P50), analysis.FormatMS(r.ITLAnswer.P50))
	if r.Logged > 0 {
		line += fmt.Sprintf("; thought as logged %s of %d", fmtPct(r.SplitExactPct), r.Logged)
	}
	return line + "\n"
}
