package checkresult

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText writes the endpoints' Results for a terminal: one line per check with a column per
// endpoint, then, for each check that did not pass, what was seen and its examples (or why it
// was skipped).
func WriteText(w io.Writer, eps []Endpoint) error {
	rows := grid(eps)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"behaviour check"}
	for _, ep := range eps {
		head = append(head, label(ep))
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range rows {
		cells := []string{r.Name}
		for _, c := range r.Cells {
			cells = append(cells, short(c))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var b strings.Builder
	for _, r := range rows {
		for e, c := range r.Cells {
			if c != nil && c.Verdict() != VerdictPass {
				writeDetail(&b, label(eps[e]), c)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeDetail writes why one Result did not pass.
func writeDetail(b *strings.Builder, label string, r *Result) {
	fmt.Fprintf(b, "%s %s: ", label, r.Name)
	switch {
	case r.Skipped != "":
		b.WriteString("skipped: " + r.Skipped + "\n")
		return
	case r.Seen != "":
		b.WriteString(r.Seen + "\n")
	default:
		b.WriteString("failed\n")
	}
	for _, ex := range r.Examples {
		b.WriteString("  - " + ex + "\n")
	}
}

// label is an endpoint's column head: its label, or "endpoint" for an unlabelled one.
func label(ep Endpoint) string {
	if ep.Label == "" {
		return "endpoint"
	}
	return ep.Label
}
