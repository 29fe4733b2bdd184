package analysis

import (
	"encoding/json"
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results"
)

// Populations are reported side by side; a non-streamed request is in no TTFT, ITL or TPOT
// figure; a request cancelled as logged is neither ok nor failed and never fails the run; output
// exactness is over forced requests, the unforced counted beside it.
func TestPopulations(t *testing.T) {
	s := summarize(t, Options{}, testenv.PopulationRows()...)
	if s.Requests.Total != 5 || s.Requests.OK != 4 || s.Requests.Failed != 0 || s.Requests.CancelledAsLogged != 1 {
		t.Fatalf("requests %+v", s.Requests)
	}
	if s.Verdict != VerdictOK+": endpoint healthy" {
		t.Fatalf("verdict %q", s.Verdict)
	}
	if s.TTFT.Count != 3 || s.ITL.Count != 4 || s.E2E.Count != 4 {
		t.Fatalf("ttft n %d itl n %d e2e n %d: the non-streamed request is e2e only, the cancelled one in none", s.TTFT.Count, s.ITL.Count, s.E2E.Count)
	}
	if f := s.Fidelity; f.Unforced != 1 || f.OutputTokensExactPct == nil || *f.OutputTokensExactPct != 100 {
		t.Fatalf("fidelity %+v (output exact %v)", f, f.OutputTokensExactPct)
	}
	p := s.Populations
	if len(p) != 3 {
		t.Fatalf("populations %v", p)
	}
	sp, nj := p["stream/plain"], p["nostream/json"]
	if sp.Requests != 3 || sp.OK != 2 || sp.CancelledAsLogged != 1 || sp.TTFT == nil || sp.TTFT.Count != 2 {
		t.Fatalf("stream/plain %+v", sp)
	}
	near(t, "stream/plain ttft p95", sp.TTFT.P95, 300)
	if nj.Requests != 1 || nj.OK != 1 || nj.TTFT != nil || nj.E2E.Count != 1 || nj.OutputTokens != 40 {
		t.Fatalf("nostream/json %+v", nj)
	}
	near(t, "nostream/json e2e p50", nj.E2E.P50, 2000)
	var sum float64
	for _, x := range p {
		sum += x.OutputTokS
	}
	if d := sum - s.Throughput.OutputTokS; d > 0.01 || d < -0.01 {
		t.Fatalf("populations' output %.3f tok/s, the run's %.3f", sum, s.Throughput.OutputTokS)
	}
}

// The populations reach summary.json (report tests the table and report.html).
func TestPopulationsWritten(t *testing.T) {
	m := NewMetrics(Options{})
	rows := testenv.PopulationRows()
	for i := range rows {
		m.Add(&rows[i])
	}
	s := m.Summary(RunInfo{Options: "logged"})
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Populations map[string]map[string]json.RawMessage `json:"populations"`
	}
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if _, ok := back.Populations["nostream/json"]["ttft_ms"]; ok || back.Populations["stream/tools"]["ttft_ms"] == nil {
		t.Fatalf("populations in summary.json %s", raw)
	}
}

// A summary of rows naming no population (an older run's) has none, and the golden outputs
// do not change.
func TestNoPopulations(t *testing.T) {
	if s := summarize(t, Options{}, testenv.OKRow("a", 0, 100, 10)); s.Populations != nil {
		t.Fatalf("populations %v", s.Populations)
	}
}

// A non-streamed request's whole answer is its first token: it meets a TTFT limit when the
// answer came in time, and misses it otherwise (not for want of a token).
func TestNonStreamedSLO(t *testing.T) {
	slo, err := ParseSLO("ttft=500ms")
	if err != nil {
		t.Fatal(err)
	}
	fast := results.Row{RequestID: "f", SentNS: 0, DoneNS: 300 * ms, PromptTokens: 1, TargetPromptTokens: 1, Population: "nostream/plain"}
	slow := fast
	slow.RequestID, slow.DoneNS = "s", 900*ms
	s := summarize(t, Options{SLO: slo}, fast, slow)
	if s.Goodput == nil || s.Goodput.MetPct["ttft"] != 50 {
		t.Fatalf("goodput %+v", s.Goodput)
	}
}
