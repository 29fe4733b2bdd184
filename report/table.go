package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/llm-replay/replay/analysis"
)

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
func WriteTable(w io.Writer, s *analysis.Summary) error {
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
	for _, dr := range s.DistRows() {
		d := dr.D
		fmt.Fprintf(&b, "%-22s %7d %10s %10s %10s %10s %10s %10s %10s\n", dr.Name, d.Count,
			analysis.FormatMS(d.P50), analysis.FormatMS(d.P90), analysis.FormatMS(d.P95), analysis.FormatMS(d.P99), analysis.FormatMS(d.P999), analysis.FormatMS(d.Max), analysis.FormatMS(d.Mean))
	}
	b.WriteString("\n")
	b.WriteString(sideBySide(s))
	if g := s.Goodput; g != nil {
		fmt.Fprintf(&b, "goodput     %s:", g.SLO)
		for _, k := range analysis.SLONames() {
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
	if f.Arrival != nil {
		b.WriteString(arrivalLine(s))
	}
	b.WriteString(tokenizeLine(s.Run.TokenizeCheck))
	b.WriteString(cacheLine(s.Cache))
	b.WriteString(serverMetricsLine(s.ServerMetrics))
	b.WriteString(reasoningLine(s))
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
	b.WriteString(errorsLine(s.Errors))
	if s.Verdict != "" {
		fmt.Fprintf(&b, "verdict     %s\n", s.Verdict)
		if j := s.Judgement; j != nil {
			for _, d := range j.Details {
				fmt.Fprintf(&b, "            %s\n", d)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// sideBySide is the run's groups side by side: populations, APIs (where there are several),
// media, SLO classes and served models (where the run has them).
func sideBySide(s *analysis.Summary) string {
	return populationTable(s.Populations) + apiTable(s.APIs) + mediaTable(s.Media) +
		groupsTable("slo class", s.SLOClasses) + groupsTable("served model", s.Models)
}

// errorsLine counts the failed requests by class, or says there were none.
func errorsLine(errs map[string]int64) string {
	if len(errs) == 0 {
		return "errors      none\n"
	}
	var b strings.Builder
	b.WriteString("errors     ")
	for _, k := range sortedKeys(errs) {
		fmt.Fprintf(&b, " %s %d", k, errs[k])
	}
	b.WriteString("\n")
	return b.String()
}

// clientLine says what the load generator went through, when it held or failed anything.
func clientLine(s *analysis.Summary) string {
	c := s.Client
	if c.Held == 0 && c.Errors == 0 {
		return ""
	}
	return fmt.Sprintf("client      %d requests held at its limit of %d in flight (backlog p99 %s ms, max %s ms), %d failed on its own limits\n",
		c.Held, c.Limit, analysis.FormatMS(c.Backlog.P99), analysis.FormatMS(c.Backlog.Max), c.Errors)
}

// cacheLine sets the prefix-cache hit rates side by side: measured from usage, measured from
// the server's Prometheus counters, the trace's ideal and, where the log counted them, the
// log's own.
func cacheLine(c analysis.Cache) string {
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
	if c.LoggedHitPct != nil {
		fmt.Fprintf(&b, "  logged %s (the log's own cached tokens)", fmtPct(c.LoggedHitPct))
	}
	b.WriteString("\n")
	return b.String()
}

// serverMetricsLine is one line when the endpoint's metrics page, scraped all run, gave no
// sample of any series its engine's table reads: without it the missing server figures look
// like an engine that had nothing to report.
func serverMetricsLine(sm *analysis.ServerMetrics) string {
	if sm == nil || sm.Note == "" {
		return ""
	}
	return "server      " + sm.Note + "\n"
}

// sentLine says how the requests were sent when the run says so: with their logged options
// or none, and when their logged bodies went verbatim (lengths then the engine's own).
func sentLine(r analysis.RunInfo) string {
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
func populationTable(pops map[string]analysis.Population) string {
	return groupTable("population", analysis.PopulationNames(pops), pops)
}

// apiTable sets the APIs the requests went to side by side, when there were several.
func apiTable(apis map[string]analysis.Population) string {
	if len(apis) < 2 {
		return ""
	}
	return groupTable("api", analysis.APINames(apis), apis)
}

// mediaTable sets the requests side by side by the media they carried and by their image
// tokens, with the media the run sent; nothing for a run without media.
func mediaTable(m *analysis.Media) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "media       %d requests carried %d images and %d audio clips (%d tokens); %.1f MiB sent inline (%.2f MiB/s)\n",
		m.Requests, m.Images, m.AudioClips, m.MediaTokens, float64(m.BytesSent)/(1<<20), m.BytesPerS/(1<<20))
	b.WriteString(groupTable("media", present(analysis.MediaPopulations, m.Populations), m.Populations))
	b.WriteString(groupTable("media tokens", present(analysis.MediaTokenBuckets, m.ByMediaTokens), m.ByMediaTokens))
	return b.String()
}

// present is names, in order, that pops holds.
func present(names []string, pops map[string]analysis.Population) []string {
	var out []string
	for _, n := range names {
		if _, ok := pops[n]; ok {
			out = append(out, n)
		}
	}
	return out
}

// groupTable is one line per group of names, headed by what the groups are.
func groupTable(what string, names []string, pops map[string]analysis.Population) string {
	if len(pops) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-16s %8s %8s %8s %9s %10s %10s %10s %10s %12s\n", what, "requests", "ok", "failed",
		"cancelled", "ttft p50", "ttft p95", "e2e p50", "e2e p95", "output tok/s")
	for _, name := range names {
		p := pops[name]
		t50, t95 := "-", "-"
		if p.TTFT != nil {
			t50, t95 = analysis.FormatMS(p.TTFT.P50), analysis.FormatMS(p.TTFT.P95)
		}
		fmt.Fprintf(&b, "%-16s %8d %8d %8d %9d %10s %10s %10s %10s %12.1f\n", name, p.Requests, p.OK, p.Failed,
			p.CancelledAsLogged, t50, t95, analysis.FormatMS(p.E2E.P50), analysis.FormatMS(p.E2E.P95), p.OutputTokS)
	}
	b.WriteString("\n")
	return b.String()
}

// arrivalLine is the terminal table's line for the run's arrivals: the verdict's judgement
// of its lateness (timeliness.go), then the arrival measures.
func arrivalLine(s *analysis.Summary) string {
	a, tl := s.Fidelity.Arrival, judgeTimeliness(s)
	var b strings.Builder
	fmt.Fprintf(&b, "arrivals    %s", tl.Word)
	if a.Verdict == "capped" {
		fmt.Fprintf(&b, ": %d requests waited for a slot, queue wait p99 %.1f ms\n", a.Queued, a.QueueWaitP99MS)
		return b.String()
	}
	fmt.Fprintf(&b, ": %s; at most %d due and not yet sent at once", tl.Detail, a.MaxBehind)
	if a.RateMaxDevReqS != nil {
		fmt.Fprintf(&b, ", rate off by at most %.0f req/s in a second (%.1f%%)", *a.RateMaxDevReqS, *a.RateMaxDevPct)
	}
	if a.BurstsKeptPct != nil {
		fmt.Fprintf(&b, ", %.1f%% of %d bursts kept", *a.BurstsKeptPct, a.Bursts)
	}
	b.WriteString("\n")
	return b.String()
}
