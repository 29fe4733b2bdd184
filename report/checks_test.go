package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/checkresult"
)

// TestReportShowsChecks: report.html shows a run's behaviour checks in a table of their own,
// a failed one named under the verdict with a link to it and its example quoted; a run
// without checks has neither, nor their styles.
func TestReportShowsChecks(t *testing.T) {
	render := func(c *analysis.Checks) string {
		m := analysis.NewMetrics(analysis.Options{})
		var b bytes.Buffer
		if err := WriteHTML(&b, m, m.Summary(analysis.RunInfo{Endpoint: "http://e/v1", Checks: c}), Options{NoEmbedFont: true}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	page := render(analysis.NewChecks(checkresult.LevelBasic, []checkresult.Result{
		{Name: checkresult.Streaming, Pass: 1, Seen: "32 content chunks in 30 reads"},
		{Name: checkresult.Stop, Pass: 1, Fail: 1, Examples: []string{`the output holds the stop string STOPWORD: "STOPWORD <b>"`}},
	}))
	for _, want := range []string{
		`<p id="checks-failed" class="verdict bad">behaviour checks failed: <a href="#checks">stop</a></p>`,
		`<h2 id="checks">Behaviour checks</h2>`, `<table class="checks">`, `<th>http://e/v1</th>`,
		`<td class="fail">FAIL 1/2`, `<td class="pass">pass 1/1`, "STOPWORD &lt;b&gt;", "table.checks td.fail", "(--checks basic)",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Index(page, `id="checks"`) > strings.Index(page, "<h2>Summary</h2>") {
		t.Error("the checks come after the summary tables")
	}
	page = render(nil)
	for _, not := range []string{"checks-failed", `id="checks"`, "table.checks"} {
		if strings.Contains(page, not) {
			t.Errorf("a run without checks shows %q", not)
		}
	}
}
