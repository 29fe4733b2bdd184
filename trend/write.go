package trend

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/report"
	"github.com/llm-replay/replay/runfolder"
)

// write.go is replay trend: many runs of one trace (their folders' summary.json) side by side
// over wall time, the run-to-run spread and the runs outside the band of the others
// (trend.go has the figures and the rule, page.go the page).

// Write reads each folder's summary.json and writes trend.json and trend.html into out. Runs
// of different traces are compared all the same, with a warning on stderr.
func Write(dirs []string, out string, k float64, stderr io.Writer) (*Trend, error) {
	if out == "" {
		return nil, errors.New("--out is required")
	}
	var runs []Run
	for _, d := range dirs {
		s, err := analysis.ReadSummary(filepath.Join(d, runfolder.Summary))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d, err)
		}
		if s.Run.StartedAt.IsZero() {
			return nil, fmt.Errorf("%s: summary.json has no run.started_at: it cannot be placed in time", d)
		}
		runs = append(runs, RunOf(d, s))
	}
	if traces := Traces(runs); len(traces) > 1 {
		fmt.Fprintf(stderr, "replay trend: the runs replayed %d different traces (%s): their spread mixes workloads\n", len(traces), strings.Join(traces, ", "))
	}
	t, err := Build(runs, k)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("creating --out: %w", err)
	}
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(out, File), append(b, '\n'), 0o644); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, t, report.Options{}); err != nil {
		return nil, err
	}
	return t, os.WriteFile(filepath.Join(out, PageFile), buf.Bytes(), 0o644)
}

// WriteTable prints one line per run, then the spread and the flagged runs.
func WriteTable(w io.Writer, t *Trend) {
	fmt.Fprintf(w, "%-20s %-19s %10s %10s %10s %9s  %s\n", "run", "started", "ttft p50", "ttft p95", "ttft p99", "goodput", "band")
	for _, r := range t.Runs {
		g := "n/a"
		if r.GoodputPct != nil {
			g = fmt.Sprintf("%.1f%%", *r.GoodputPct)
		}
		fmt.Fprintf(w, "%-20s %-19s %10.1f %10.1f %10.1f %9s  %s\n", filepath.Base(r.Dir), r.StartedAt.Format("2006-01-02 15:04:05"), r.TTFTP50, r.TTFTP95, r.TTFTP99, g, r)
	}
	if s, ok := t.Spread["ttft_p95_ms"]; ok {
		fmt.Fprintf(w, "ttft p95 over the runs: median %.1f ms, MAD %.1f ms, %.1f to %.1f ms, CV %.1f%%\n", s.Median, s.MAD, s.Min, s.Max, s.CVPct)
	}
	fmt.Fprintf(w, "rule: %s\n", t.Rule)
	if len(t.Flagged) == 0 {
		fmt.Fprintln(w, "flagged: none")
		return
	}
	fmt.Fprintf(w, "flagged: %s\n", strings.Join(t.Flagged, " "))
}
