package compare

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/checkresult"
	"github.com/llm-replay/replay/report"
	"github.com/llm-replay/replay/results"
)

var reportDir = flag.String("report-dir", "", "also write the comparison's full compare.html (font embedded) here, to look at")

// synthRun is a seeded synthetic run of n requests: Poisson arrivals at rate a second,
// lognormal TTFT (median ttftMS, sigma ttftSigma) and inter-token gaps (median itlMS), output
// lengths uniform in [1, maxOut], a share errRate failing before their first token.
type synthRun struct {
	n             int
	seed          uint64
	rate          float64
	ttftMS, itlMS float64
	ttftSigma     float64
	maxOut        int
	errRate       float64
}

func metricsOf(t testing.TB, sp synthRun) (*analysis.Metrics, *analysis.Summary) {
	t.Helper()
	rng := rand.New(rand.NewPCG(sp.seed, 0x5eed))
	m := analysis.NewMetrics(analysis.Options{Speed: 1})
	var at float64 // seconds
	for i := range sp.n {
		at += rng.ExpFloat64() / sp.rate
		sent := int64(at * 1e9)
		first := sent + int64(sp.ttftMS*math.Exp(sp.ttftSigma*rng.NormFloat64())*1e6)
		chunks := []int64{first}
		for range rng.IntN(sp.maxOut) {
			chunks = append(chunks, chunks[len(chunks)-1]+int64(sp.itlMS*math.Exp(0.3*rng.NormFloat64())*1e6))
		}
		last := chunks[len(chunks)-1]
		r := results.Row{RequestID: fmt.Sprintf("r%05d", i), OriginalTimestampNS: sent, ScheduledNS: sent, SentNS: sent,
			FirstTokenNS: first, LastTokenNS: last, DoneNS: last + 200_000, ChunkNS: chunks,
			TargetPromptTokens: 500, PromptTokens: 500, CompletionTokens: int32(len(chunks)), TargetOutputTokens: int32(len(chunks)),
			HTTPStatus: 200, Endpoint: "sim"}
		if rng.Float64() < sp.errRate {
			r.ErrorClass, r.ErrorMessage, r.HTTPStatus = "http_5xx", "synthetic", 500
			r.FirstTokenNS, r.LastTokenNS, r.ChunkNS, r.DoneNS = 0, 0, nil, first
			r.PromptTokens, r.CompletionTokens = -1, -1
		}
		m.Add(&r)
	}
	return m, m.Summary(analysis.RunInfo{})
}

var compareBase = synthRun{n: 400, rate: 20, ttftMS: 100, ttftSigma: 0.4, itlMS: 20, maxOut: 40, errRate: 0.01}

func TestCompareNamesTheSlower(t *testing.T) {
	fast := compareBase
	fast.seed = 11
	slow := compareBase
	slow.seed = 12
	slow.ttftMS, slow.itlMS = 150, 24 // a slower cost model: prefill +50%, decode +20%

	ma, sa := metricsOf(t, fast)
	mb, sb := metricsOf(t, slow)
	c := Distributions(ma, mb, sa, sb, Options{})
	if c.Slower != "B" || !strings.HasPrefix(c.Verdict, "B is slower: p95 TTFT +") {
		t.Fatalf("verdict %q (slower %q)", c.Verdict, c.Slower)
	}
	iv := c.Tests[0].Interval
	if !(iv.Lo > 0 && iv.Lo <= iv.Delta && iv.Delta <= iv.Hi) {
		t.Errorf("p95 TTFT interval %+v does not exclude zero around its delta", iv)
	}
	if c.TTFTMannWhitney.P > 1e-6 || c.TTFTMannWhitney.ProbBGreater < 0.6 {
		t.Errorf("Mann-Whitney %+v", c.TTFTMannWhitney)
	}
	t.Log(c.Verdict)

	// Swapped, A is the slower one.
	c = Distributions(mb, ma, sb, sa, Options{})
	if c.Slower != "A" || !strings.HasPrefix(c.Verdict, "A is slower: p95 TTFT +") {
		t.Errorf("swapped: verdict %q", c.Verdict)
	}

	var buf bytes.Buffer
	if err := WriteTable(&buf, c); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "verdict: A is slower") || !strings.Contains(buf.String(), "Mann-Whitney") {
		t.Errorf("table:\n%s", buf.String())
	}
	buf.Reset()
	if err := WriteHTML(&buf, c, report.Options{NoEmbedFont: true}); err != nil {
		t.Fatal(err)
	}
	if *reportDir != "" {
		var full bytes.Buffer
		if err := WriteHTML(&full, c, report.Options{}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(*reportDir, "compare.html"), full.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(buf.String(), "<svg"); n != 2 || !strings.Contains(buf.String(), "A is slower") {
		t.Errorf("html: %d svgs", n)
	}
}

func TestCompareSameDistributionNoClaim(t *testing.T) {
	a := compareBase
	a.seed = 21
	b := compareBase
	b.seed = 22
	ma, sa := metricsOf(t, a)
	mb, sb := metricsOf(t, b)
	c := Distributions(ma, mb, sa, sb, Options{})
	if c.Slower != "" || !strings.HasPrefix(c.Verdict, "no significant difference") {
		t.Fatalf("same distribution: verdict %q", c.Verdict)
	}
	t.Log(c.Verdict)

	// Over many seed pairs the false-claim rate stays near the nominal level: two tests at 95%
	// claim a difference in about 10% of pairs.
	claims := 0
	const pairs = 30
	for i := uint64(0); i < pairs; i++ {
		a.seed, b.seed = 100+2*i, 101+2*i
		ma, sa := metricsOf(t, a)
		mb, sb := metricsOf(t, b)
		if Distributions(ma, mb, sa, sb, Options{Resamples: 1000}).Slower != "" {
			claims++
		}
	}
	if claims > 6 {
		t.Errorf("claimed a difference in %d of %d same-distribution pairs", claims, pairs)
	}
	t.Logf("false claims: %d of %d", claims, pairs)
}

// TestCompareShowsChecks: `replay compare` prints both runs' checks side by side after its
// table and puts them on its page; runs without checks show none.
func TestCompareShowsChecks(t *testing.T) {
	ma, mb := analysis.NewMetrics(analysis.Options{}), analysis.NewMetrics(analysis.Options{})
	sa := ma.Summary(analysis.RunInfo{Checks: analysis.NewChecks(checkresult.LevelBasic, []checkresult.Result{{Name: checkresult.Stop, Pass: 2}})})
	sb := mb.Summary(analysis.RunInfo{Checks: analysis.NewChecks(checkresult.LevelBasic, []checkresult.Result{{Name: checkresult.Stop, Fail: 2, Examples: []string{"holds STOPWORD"}}})})
	c := Distributions(ma, mb, sa, sb, Options{})
	var text, page bytes.Buffer
	if err := WriteTable(&text, c); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&page, c, report.Options{NoEmbedFont: true}); err != nil {
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
	c = Distributions(ma, mb, ma.Summary(analysis.RunInfo{}), mb.Summary(analysis.RunInfo{}), Options{})
	text.Reset()
	if err := WriteTable(&text, c); err != nil || strings.Contains(text.String(), "behaviour check") {
		t.Errorf("no checks: %v\n%s", err, text.String())
	}
}
