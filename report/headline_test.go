package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/internal/testenv"
)

// TestHeadlineFirst: the headline row (requests, ok, throughput, TTFT p50/p95, ITL p95,
// goodput, verdict) comes before every other table of report.html, the fidelity table has at
// most six rows with the rest folded under it, and a run whose every request succeeded says
// "no errors" in one line instead of a chart of zeros.
func TestHeadlineFirst(t *testing.T) {
	m, s := goldenMetrics(t)
	var buf bytes.Buffer
	if err := WriteHTML(&buf, m, s, Options{NoEmbedFont: true}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	h := strings.Index(page, `<table id="headline"`)
	if h < 0 || h > strings.Index(page, "<table") || h > strings.Index(page, "<h2") {
		t.Fatal("the headline is not the page's first table, above every section")
	}
	for _, want := range []string{"<td>600</td><td>97.0%</td><td>17.98 req/s, 549.0 output tok/s</td><td>117.6 / 286.2 ms</td><td>40.93 ms</td>",
		"<td>84.2% within SLO (15.60 req/s)</td>", `<td id="verdict" class="verdict">valid: endpoint healthy</td>`} {
		if !strings.Contains(page[h:], want) {
			t.Errorf("headline lacks %q", want)
		}
	}
	fid := page[strings.Index(page, "<h2>Fidelity</h2>"):]
	fid = fid[:strings.Index(fid, "</table>")]
	if n := strings.Count(fid, "<tr><td>"); n > 6 || n < 4 {
		t.Errorf("fidelity table has %d rows, want at most 6", n)
	}
	if !strings.Contains(page, "<details><summary>every fidelity measure</summary>") {
		t.Error("the other fidelity measures are not folded under the table")
	}

	ok := analysis.NewMetrics(analysis.Options{Speed: 1})
	for i := range 20 {
		r := testenv.OKRow(fmt.Sprint(i), int64(i)*100, 40, 10, 12, 11)
		ok.Add(&r)
	}
	buf.Reset()
	if err := WriteHTML(&buf, ok, ok.Summary(analysis.RunInfo{}), Options{NoEmbedFont: true}); err != nil {
		t.Fatal(err)
	}
	page = buf.String()
	if !strings.Contains(page, `<p id="errors" class="nodata"><b>Errors by class</b>: no errors.</p>`) || strings.Contains(page, "failed requests by error class") {
		t.Error("a run without failures draws an error chart instead of saying no errors")
	}
	if !strings.Contains(page, `<h2 id="ttft-hist">`) {
		t.Error("a run of successful streamed requests lost its TTFT chart")
	}
	if !strings.Contains(page, "<td>20</td><td>100.0%</td>") {
		t.Error("the headline does not count 20 requests, all ok")
	}
}
