package compare

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/report"
	"github.com/llm-replay/replay/runload"
)

// Run is one finished run of a trace, loaded from its folder (analysis.LoadDir).
type Run struct {
	Dir     string
	Metrics *analysis.Metrics
	Summary *analysis.Summary
}

// UnpairedOptions tune Unpaired: the bootstrap's size and seed, and HTML, a file to write
// the comparison's page to ("" for none).
type UnpairedOptions struct {
	Resamples int
	Seed      uint64
	HTML      string
}

// Unpaired sets run B against run A (`replay compare`): the figures side by side with the
// bootstrap tests and the verdict (Distributions), then, when the runs share request ids
// (the same trace replayed against both), the per-request paired tests, far more sensitive
// since each request's own size and prefix cancel out; and the page when o.HTML names a file.
func Unpaired(w io.Writer, a, b Run, o UnpairedOptions) (*Comparison, error) {
	c := Distributions(a.Metrics, b.Metrics, a.Summary, b.Summary, Options{
		LabelA: a.Dir, LabelB: b.Dir, Resamples: o.Resamples, Seed: o.Seed})
	if err := WriteTable(w, c); err != nil {
		return nil, err
	}
	if err := writePairedTests(w, a.Dir, b.Dir, o); err != nil {
		return nil, err
	}
	if o.HTML != "" {
		var buf bytes.Buffer
		if err := WriteHTML(&buf, c, report.Options{}); err != nil {
			return nil, err
		}
		if err := os.WriteFile(o.HTML, buf.Bytes(), 0o644); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// writePairedTests prints the per-request paired tests of the two folders' rows, or why
// there are none.
func writePairedTests(w io.Writer, dirA, dirB string, o UnpairedOptions) error {
	va, vb, err := runload.ReadRequestValues(dirA, dirB)
	if err != nil {
		return err
	}
	tests := analysis.PairedTests(va, vb, analysis.PairedOptions{Resamples: o.Resamples, Seed: o.Seed})
	if len(tests) == 0 || tests[0].N == 0 {
		fmt.Fprintln(w, "paired: no request id is ok in both runs; only the unpaired comparison above applies")
		return nil
	}
	fmt.Fprintf(w, "\npaired per request (%d requests ok in both):\n", tests[0].N)
	for _, t := range tests {
		fmt.Fprintf(w, "  %s\n", t.Verdict)
	}
	return nil
}
