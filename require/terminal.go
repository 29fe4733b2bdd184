package require

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteOutcomes prints one line per requirement for the terminal, aligned:
//
//	pass  ttft.p95  412.3ms  <=500ms
//	FAIL  goodput   -        >=95%    no SLO in the run: goodput needs one (--slo)
//
// FAIL is in capitals so that a failing gate stands out in a CI log.
func WriteOutcomes(w io.Writer, outs []Outcome) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, o := range outs {
		status := "pass"
		if !o.Pass {
			status = "FAIL"
		}
		line := status + "\t" + o.Term + "\t" + o.Value + "\t" + o.Limit
		if o.Reason != "" {
			line += "\t" + o.Reason
		}
		if _, err := fmt.Fprintln(tw, line); err != nil {
			return err
		}
	}
	return tw.Flush()
}
