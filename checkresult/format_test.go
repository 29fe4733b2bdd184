package checkresult

import (
	"bytes"
	"strings"
	"testing"
)

// twoEndpoints are Results of two endpoints side by side, one of them with a failure whose
// example quotes markup, and a check only one of them has.
func twoEndpoints() []Endpoint {
	return []Endpoint{
		{Label: "A", Results: []Result{
			{Name: Streaming, Pass: 1, Seen: "32 content chunks in 32 reads"},
			{Name: ToolCalls, Pass: 2},
		}},
		{Label: "B", Results: []Result{
			{Name: Streaming, Fail: 1, Seen: "32 content chunks in 1 read", Examples: []string{`all content in one burst: "<script>x</script>"`}},
			{Name: ToolCalls, Skipped: "the completions API has no tools"},
			{Name: OverloadCheck, Pass: 3, Fail: 1, Examples: []string{"429 without Retry-After (1 of 4)"}},
		}},
	}
}

// TestWriteText: a line per check with a cell per endpoint, then what each check that did not
// pass saw.
func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, twoEndpoints()); err != nil {
		t.Fatal(err)
	}
	want := `behaviour check  A         B
streaming        pass 1/1  FAIL 0/1
tool_calls       pass 2/2  skipped
overload         -         FAIL 3/4
B streaming: 32 content chunks in 1 read
  - all content in one burst: "<script>x</script>"
B tool_calls: skipped: the completions API has no tools
B overload: failed
  - 429 without Retry-After (1 of 4)
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestHTML: a table with a column per endpoint, cells classed by verdict, details folded, and
// every quoted byte escaped.
func TestHTML(t *testing.T) {
	h := string(HTML(twoEndpoints()))
	for _, want := range []string{
		`<th>A</th><th>B</th>`,
		`<tr><th>streaming</th><td class="pass">pass 1/1<details>`,
		`<td class="fail">FAIL 0/1<details>`,
		`&lt;script&gt;x&lt;/script&gt;`,
		`<td class="skipped">skipped<details><summary>details</summary><p>the completions API has no tools</p>`,
		`<td class="none">-</td>`,
	} {
		if !strings.Contains(h, want) {
			t.Errorf("no %s in\n%s", want, h)
		}
	}
	if strings.Contains(h, "<script>") {
		t.Errorf("unescaped markup in\n%s", h)
	}
}

// TestResultBounds: examples stop at maxExamples, Seen is cut, and a Result with nothing
// judged is a fail.
func TestResultBounds(t *testing.T) {
	var r Result
	for range 10 {
		r.CountFail(strings.Repeat("seen ", 100), "why")
	}
	if r.Fail != 10 || len(r.Examples) != maxExamples || len(r.Seen) > maxSeen+4 {
		t.Errorf("%d fails, %d examples, %d bytes seen", r.Fail, len(r.Examples), len(r.Seen))
	}
	if (Result{}).Verdict() != VerdictFail {
		t.Error("a Result with no request judged passes")
	}
}
