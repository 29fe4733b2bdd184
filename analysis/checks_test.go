package analysis

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llm-replay/replay/checkresult"
)

// TestReportShowsChecks: report.html shows a run's behaviour checks in a table of their own,
// a failed one named under the verdict with a link to it and its example quoted; a run
// without checks has neither, nor their styles.
func TestReportShowsChecks(t *testing.T) {
	render := func(c *Checks) string {
		m := NewMetrics(Options{})
		var b bytes.Buffer
		if err := WriteHTML(&b, m, m.Summary(RunInfo{Endpoint: "http://e/v1", Checks: c}), ReportOptions{NoEmbedFont: true}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	page := render(NewChecks(checkresult.LevelBasic, []checkresult.Result{
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

// TestCompareShowsChecks: `replay compare` prints both runs' checks side by side after its
// table and puts them on its page; runs without checks show none.
func TestCompareShowsChecks(t *testing.T) {
	ma, mb := NewMetrics(Options{}), NewMetrics(Options{})
	sa := ma.Summary(RunInfo{Checks: NewChecks(checkresult.LevelBasic, []checkresult.Result{{Name: checkresult.Stop, Pass: 2}})})
	sb := mb.Summary(RunInfo{Checks: NewChecks(checkresult.LevelBasic, []checkresult.Result{{Name: checkresult.Stop, Fail: 2, Examples: []string{"holds STOPWORD"}}})})
	c := Compare(ma, mb, sa, sb, CompareOptions{})
	var text, page bytes.Buffer
	if err := WriteCompareTable(&text, c); err != nil {
		t.Fatal(err)
	}
	if err := WriteCompareHTML(&page, c, ReportOptions{NoEmbedFont: true}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"behaviour check  A         B", "stop             pass 2/2  FAIL 0/2", "B stop: ", "  - holds STOPWORD"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("compare table lacks %q\n%s", want, text.String())
		}
	}
	if !strings.Contains(page.String(), `<h2 id="checks">Behaviour checks</h2>`) || !strings.Contains(page.String(), `<td class="fail">FAIL 0/2`) {
		t.Error("compare.html has no checks table")
	}
	c = Compare(ma, mb, ma.Summary(RunInfo{}), mb.Summary(RunInfo{}), CompareOptions{})
	text.Reset()
	if err := WriteCompareTable(&text, c); err != nil || strings.Contains(text.String(), "behaviour check") {
		t.Errorf("no checks: %v\n%s", err, text.String())
	}
}
