package ingest

import (
	"fmt"
	"io"
	"strings"
)

// WriteFileCounts says, a line per file of a log read as several files (Counts.Files), what
// each gave: its records, the records skipped as no model request (a gateway's tool or MCP
// calls, health checks), its rejected rows, whether it was out of order (read whole and
// sorted) and those without an output count. A log of one file prints nothing: the read's
// own report says it all.
func WriteFileCounts(w io.Writer, c Counts) {
	for _, f := range c.Files {
		if f.Unread {
			fmt.Fprintf(w, "%s: not read (the window ended before it)\n", f.File)
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %d records", f.File, f.Records)
		if f.Records == 0 && f.Rejected == 0 && f.Skipped == 0 {
			b.WriteString(" (empty)")
		}
		if f.Skipped > 0 {
			fmt.Fprintf(&b, ", %d skipped (no model request: tool or MCP calls, health checks)", f.Skipped)
		}
		if f.Rejected > 0 {
			fmt.Fprintf(&b, ", %d rejected (bad rows)", f.Rejected)
		}
		if f.Sorted {
			b.WriteString(", out of order: read whole and sorted")
		}
		if f.OutputUnknown > 0 {
			fmt.Fprintf(&b, ", %d without an output count", f.OutputUnknown)
		}
		fmt.Fprintln(w, b.String())
	}
	if len(c.Files) > 0 {
		fmt.Fprintf(w, "%d files read as one log, at most %d open at once\n", len(c.Files), c.MostFilesOpen)
	}
}
