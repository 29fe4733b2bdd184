package shard

import (
	"bytes"
	"html"
	"path/filepath"
	"strings"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/report"
	"github.com/llm-replay/replay/runfolder"
)

// writeRunFiles writes out/summary.json and out/report.html (and, for calibrated shards,
// calibration.json and queueing.csv), as report.WriteRunFiles does, but with the merged
// verdict in both: WriteRunFiles judges the rows alone, and the rows cannot say that a shard
// was cut, interrupted or client-bound. The report also gets the combined schedule's line
// under its verdict.
func writeRunFiles(out string, m *analysis.Metrics, s *analysis.Summary, cal *analysis.Calibration, line string) error {
	if cal != nil { // the merged run's split, kept as a run keeps it
		if err := analysis.WriteCalibration(out, cal); err != nil {
			return err
		}
		if err := runfolder.WriteFile(filepath.Join(out, runfolder.Queueing), analysis.QueueingCSV(m.QueueingRequests())); err != nil {
			return err
		}
	}
	if err := analysis.WriteSummary(out, s); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := report.WriteHTML(&buf, m, s, report.Options{}); err != nil {
		return err
	}
	return runfolder.WriteFile(filepath.Join(out, runfolder.Report), withScheduleLine(buf.Bytes(), line))
}

// withScheduleLine puts the combined schedule's line in the report, after the verdict (or
// the title, for a page without one). The report's template has no place for it: a note
// field in analysis.RunInfo that the template shows would make this splice unnecessary.
func withScheduleLine(page []byte, line string) []byte {
	p := string(page)
	at := -1
	if v := strings.Index(p, `<p id="verdict"`); v >= 0 {
		if end := strings.Index(p[v:], "</p>"); end >= 0 {
			at = v + end + len("</p>")
		}
	} else if h := strings.Index(p, "</h1>"); h >= 0 {
		at = h + len("</h1>")
	}
	if at < 0 {
		return page
	}
	note := "\n" + `<p id="shards" class="note">Merged run, ` + html.EscapeString(line) + ". Each shard's folder, row range and verdict are in " + runfolder.Shards + ".</p>"
	return []byte(p[:at] + note + p[at:])
}
