package analysis

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// fmtMS prints a millisecond figure with about four significant digits.
func fmtMS(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v < 10:
		return fmt.Sprintf("%.3f", v)
	case v < 100:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.1f", v)
	}
}

func fmtPct(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", *p)
}

func fmtMoney(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", *v)
}

// distRow names one latency line of the tables.
type distRow struct {
	Name string
	D    Dist
}

func (s *Summary) distRows() []distRow {
	return []distRow{
		{"ttft", s.TTFT}, {"ttft (from scheduled)", s.TTFTSched}, {"itl", s.ITL}, {"tpot", s.TPOT},
		{"e2e", s.E2E}, {"e2e (from scheduled)", s.E2ESched}, {"lateness", s.Lateness}, {"queue wait", s.QueueWait},
	}
}

// sortedKeys returns a map's keys in order, for deterministic output.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// WriteTable prints the summary as a terminal table: counts, throughput, the latency
// percentiles, goodput, fidelity, cache and errors.
func WriteTable(w io.Writer, s *Summary) error {
	var b strings.Builder
	if rc := s.Run.Recovery; rc != nil {
		fmt.Fprintf(&b, "run         cut before it closed: %d rows recovered from %s", rc.Rows, rc.From)
		if rc.Dropped != "" {
			fmt.Fprintf(&b, " (%s)", rc.Dropped)
		}
		b.WriteString("\n")
	}
	r := s.Requests
	fmt.Fprintf(&b, "requests    total %d  ok %d  failed %d  warmup %d", r.Total, r.OK, r.Failed, r.Warmup)
	if r.CancelledAsLogged > 0 {
		fmt.Fprintf(&b, "  cancelled as logged %d", r.CancelledAsLogged)
	}
	if r.NotSent > 0 {
		fmt.Fprintf(&b, "  not sent %d", r.NotSent)
	}
	b.WriteString("\n")
	b.WriteString(sentLine(s.Run))
	t := s.Throughput
	fmt.Fprintf(&b, "throughput  %.2f req/s  input %.1f tok/s  output %.1f tok/s  over %.1f s\n\n",
		t.ReqS, t.InputTokS, t.OutputTokS, t.DurationS)

	fmt.Fprintf(&b, "%-22s %7s %10s %10s %10s %10s %10s %10s %10s\n", "latency (ms)", "n", "p50", "p90", "p95", "p99", "p99.9", "max", "mean")
	for _, dr := range s.distRows() {
		d := dr.D
		fmt.Fprintf(&b, "%-22s %7d %10s %10s %10s %10s %10s %10s %10s\n", dr.Name, d.Count,
			fmtMS(d.P50), fmtMS(d.P90), fmtMS(d.P95), fmtMS(d.P99), fmtMS(d.P999), fmtMS(d.Max), fmtMS(d.Mean))
	}
	b.WriteString("\n")
	b.WriteString(populationTable(s.Populations))
	if g := s.Goodput; g != nil {
		fmt.Fprintf(&b, "goodput     %s:", g.SLO)
		for _, k := range sloKeys {
			if v, ok := g.MetPct[k]; ok {
				fmt.Fprintf(&b, "  %s %.1f%%", k, v)
			}
		}
		fmt.Fprintf(&b, "  all %.1f%% (%.2f req/s)\n", g.AllPct, g.ReqS)
	}
	f := s.Fidelity
	fmt.Fprintf(&b, "fidelity    prompt tokens exact %s  output tokens exact %s", fmtPct(f.PromptTokensExactPct), fmtPct(f.OutputTokensExactPct))
	if f.Unforced > 0 {
		fmt.Fprintf(&b, " of forced requests (%d unforced)", f.Unforced)
	}
	fmt.Fprintf(&b, "  (%d requests reported usage)", f.UsageReported)
	b.WriteString("\n")
	if a := f.Arrival; a != nil {
		b.WriteString(arrivalLine(a))
	}
	b.WriteString(cacheLine(s.Cache))
	if ss := s.Sessions; ss != nil {
		fmt.Fprintf(&b, "sessions    %d requests in %d sessions, %d multi-turn: %d later turns each sent after the previous answer\n",
			ss.Requests, ss.Sessions, ss.MultiTurn, ss.LaterTurns)
	}
	if c := s.Cost; c != nil {
		fmt.Fprintf(&b, "cost        %s per million output tokens", fmtMoney(c.PerMOutputTokens))
		if s.Goodput != nil {
			fmt.Fprintf(&b, ", %s counting only output within SLO", fmtMoney(c.PerMOutputTokensSLO))
		}
		fmt.Fprintf(&b, " (%d GPUs at %.2f an hour)\n", c.GPUs, c.PerGPUHour)
	}
	b.WriteString(clientLine(s))
	if len(s.Errors) == 0 {
		b.WriteString("errors      none\n")
	} else {
		b.WriteString("errors     ")
		for _, k := range sortedKeys(s.Errors) {
			fmt.Fprintf(&b, " %s %d", k, s.Errors[k])
		}
		b.WriteString("\n")
	}
	if s.Verdict != "" {
		fmt.Fprintf(&b, "verdict     %s\n", s.Verdict)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// clientLine says what the load generator went through, when it held or failed anything.
func clientLine(s *Summary) string {
	c := s.Client
	if c.Held == 0 && c.Errors == 0 {
		return ""
	}
	return fmt.Sprintf("client      %d requests held at its limit of %d in flight (backlog p99 %s ms, max %s ms), %d failed on its own limits\n",
		c.Held, c.Limit, fmtMS(c.Backlog.P99), fmtMS(c.Backlog.Max), c.Errors)
}

// cacheLine sets the three prefix-cache hit rates side by side: measured from usage, measured
// from the server's Prometheus counters, and the trace's ideal.
func cacheLine(c Cache) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cache       hit rate from usage %s (%d of %d prompt tokens cached)", fmtPct(c.HitPct), c.CachedTokens, c.PromptTokens)
	switch {
	case c.ServerHitPct != nil:
		fmt.Fprintf(&b, "  from /metrics %s", fmtPct(c.ServerHitPct))
	case c.Server != nil:
		fmt.Fprintf(&b, "  from /metrics n/a (%d scrapes, %d failed)", c.Server.Scrapes, c.Server.Failures)
	}
	if c.Ideal != nil {
		bs := "mixed-size"
		if c.Ideal.BlockSize > 0 {
			bs = fmt.Sprintf("%d-token", c.Ideal.BlockSize)
		}
		fmt.Fprintf(&b, "  ideal %s (infinite cache, %s blocks)", fmtPct(c.IdealHitPct), bs)
	}
	b.WriteString("\n")
	return b.String()
}

// sentLine says how the requests were sent when the run says so: with their logged options
// or none, and when their logged bodies went verbatim (lengths then the engine's own).
func sentLine(r RunInfo) string {
	switch {
	case r.Body == "verbatim":
		return "sent        logged bodies verbatim (model replaced): prompt and output lengths are the engine's own, not the trace's\n"
	case r.Options == "logged":
		return "sent        each request with its logged options (sampling, stop, tools, response_format, n, stream)\n"
	}
	return ""
}

// populationTable sets the populations side by side: TTFT for streamed ones only, since a
// non-streamed answer is measured end to end.
func populationTable(pops map[string]Population) string {
	if len(pops) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-16s %8s %8s %8s %9s %10s %10s %10s %10s %12s\n", "population", "requests", "ok", "failed",
		"cancelled", "ttft p50", "ttft p95", "e2e p50", "e2e p95", "output tok/s")
	for _, name := range populationNames(pops) {
		p := pops[name]
		t50, t95 := "-", "-"
		if p.TTFT != nil {
			t50, t95 = fmtMS(p.TTFT.P50), fmtMS(p.TTFT.P95)
		}
		fmt.Fprintf(&b, "%-16s %8d %8d %8d %9d %10s %10s %10s %10s %12.1f\n", name, p.Requests, p.OK, p.Failed,
			p.CancelledAsLogged, t50, t95, fmtMS(p.E2E.P50), fmtMS(p.E2E.P95), p.OutputTokS)
	}
	b.WriteString("\n")
	return b.String()
}
