package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llm-replay/replay/analysis"
)

// TestTimelinessAgreesWithTheVerdict: the page and the terminal table call a run behind only
// past the send-lateness limit its verdict holds it to (--max-lateness, 10 ms by default), not
// at the arrival measures' 1 ms mark: a run late by 4 ms at p99 is on time (the finer finding
// kept beside it), one late by 25 ms is behind, and under a 50 ms limit on time again.
func TestTimelinessAgreesWithTheVerdict(t *testing.T) {
	render := func(p99 float64, lim *analysis.Limits) (string, string) {
		m, s := goldenMetrics(t)
		s.Lateness.P99, s.Run.Limits = p99, lim
		a := *s.Fidelity.Arrival
		a.LatenessP99MS, a.Verdict, a.Why = p99, "behind", "send lateness p99 over 1.0 ms"
		s.Fidelity.Arrival = &a
		var page, table bytes.Buffer
		if err := WriteHTML(&page, m, s, Options{NoEmbedFont: true}); err != nil {
			t.Fatal(err)
		}
		if err := WriteTable(&table, s); err != nil {
			t.Fatal(err)
		}
		return page.String(), table.String()
	}
	cases := []struct {
		p99       float64
		lim       *analysis.Limits
		row, line string
	}{
		{4, nil, `<td>on time: send lateness p99 4.000 ms within the 10 ms limit; over the 1 ms on-time mark`, "arrivals    on time: send lateness p99 4.000 ms within the 10 ms limit"},
		{25, nil, `<td class="bad">behind: send lateness p99 25.00 ms over the 10 ms limit`, "arrivals    behind: send lateness p99 25.00 ms over the 10 ms limit"},
		{25, &analysis.Limits{MaxLatenessMS: 50}, `<td>on time: send lateness p99 25.00 ms within the 50 ms limit`, "arrivals    on time"},
		{25, &analysis.Limits{}, `<td>not judged: send lateness p99 25.00 ms, no limit`, "arrivals    not judged"},
	}
	for _, tc := range cases {
		page, table := render(tc.p99, tc.lim)
		if !strings.Contains(page, tc.row) {
			t.Errorf("p99 %v ms, limits %+v: the page's fidelity row lacks %q", tc.p99, tc.lim, tc.row)
		}
		if !strings.Contains(table, tc.line) {
			t.Errorf("p99 %v ms, limits %+v: the table lacks %q:\n%s", tc.p99, tc.lim, tc.line, table)
		}
		if behind := strings.Contains(table, "arrivals    behind"); behind != (tc.row[:15] == `<td class="bad"`) {
			t.Errorf("p99 %v ms, limits %+v: the table says behind %v, the page otherwise", tc.p99, tc.lim, behind)
		}
	}
}

// TestServerMetricsEmptySaid: a run whose metrics page gave no sample says so on one line of
// the terminal table and in the page's run table; one whose page gave samples says nothing.
func TestServerMetricsEmptySaid(t *testing.T) {
	m, s := goldenMetrics(t)
	note := "no samples at http://127.0.0.1:8000/prometheus/metrics: all 31 scrapes failed (HTTP 404)"
	s.ServerMetrics = &analysis.ServerMetrics{URL: "http://127.0.0.1:8000/prometheus/metrics", Failures: 31, Note: note}
	var page, table bytes.Buffer
	if err := WriteHTML(&page, m, s, Options{NoEmbedFont: true}); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(&table, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "\nserver      "+note+"\n") {
		t.Errorf("the table does not say the page gave nothing:\n%s", table.String())
	}
	if !strings.Contains(page.String(), `<tr><td>server metrics</td><td class="bad">`+note+`</td></tr>`) {
		t.Error("the page does not say the metrics page gave nothing")
	}
	s.ServerMetrics = &analysis.ServerMetrics{URL: "http://127.0.0.1:8000/metrics", Scrapes: 31, Samples: 124}
	table.Reset()
	if err := WriteTable(&table, s); err != nil || strings.Contains(table.String(), "\nserver ") {
		t.Errorf("a page with samples printed a server line (%v):\n%s", err, table.String())
	}
}
