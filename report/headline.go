package report

import (
	"fmt"

	"github.com/llm-replay/replay/analysis"
)

// headline is report.html's first row: what a reader judges a run by before anything else
// (how many requests and how many succeeded, the throughput, the latencies users feel, the
// goodput at the SLO when one was given, and the verdict), each already worded, so the
// page's template only lays them out.
type headline struct {
	Requests   int64
	OKPct      string // "97.0%", "n/a" without requests
	Throughput string // "17.98 req/s, 549.0 output tok/s"
	TTFT       string // "117.6 / 286.2 ms" (p50 / p95), "n/a" when no streamed request succeeded
	TTFAT      string // the same of the first answer token, "" when the model did not think
	ITL        string // p95
	Goodput    string // "" without an SLO
	Verdict    string
	VerdictBad bool
}

func newHeadline(s *analysis.Summary) headline {
	h := headline{Requests: s.Requests.Total, OKPct: "n/a", TTFT: "n/a", ITL: "n/a", Verdict: s.Verdict,
		VerdictBad: !analysis.VerdictIs(s.Verdict, analysis.VerdictOK),
		Throughput: fmt.Sprintf("%.2f req/s, %.1f output tok/s", s.Throughput.ReqS, s.Throughput.OutputTokS)}
	if s.Requests.Total > 0 {
		h.OKPct = fmt.Sprintf("%.1f%%", 100*float64(s.Requests.OK)/float64(s.Requests.Total))
	}
	if s.TTFT.Count > 0 {
		h.TTFT = analysis.FormatMS(s.TTFT.P50) + " / " + analysis.FormatMS(s.TTFT.P95) + " ms"
	}
	if s.Thought() {
		h.TTFAT = "n/a"
		if s.TTFAT.Count > 0 {
			h.TTFAT = analysis.FormatMS(s.TTFAT.P50) + " / " + analysis.FormatMS(s.TTFAT.P95) + " ms"
		}
	}
	if s.ITL.Count > 0 {
		h.ITL = analysis.FormatMS(s.ITL.P95) + " ms"
	}
	if g := s.Goodput; g != nil {
		h.Goodput = fmt.Sprintf("%.1f%% within SLO (%.2f req/s)", g.AllPct, g.ReqS)
	}
	return h
}

// headlineHTML lays the headline out as one table row, above everything else on the page.
const headlineHTML = `{{with .Headline}}<table id="headline" class="headline">
<tr><th>requests</th><th>ok</th><th>throughput</th><th>TTFT p50 / p95</th>{{if .TTFAT}}<th>TTFAT p50 / p95</th>{{end}}<th>ITL p95</th>{{if .Goodput}}<th>goodput</th>{{end}}<th>verdict</th></tr>
<tr><td>{{.Requests}}</td><td>{{.OKPct}}</td><td>{{.Throughput}}</td><td>{{.TTFT}}</td>{{with .TTFAT}}<td>{{.}}</td>{{end}}<td>{{.ITL}}</td>{{with .Goodput}}<td>{{.}}</td>{{end}}<td id="verdict" class="verdict{{if .VerdictBad}} bad{{end}}">{{.Verdict}}</td></tr>
</table>
{{end}}`
