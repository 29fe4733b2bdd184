package analysis

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func metricsOf(t testing.TB, sp synthSpec) (*Metrics, *Summary) {
	t.Helper()
	m := NewMetrics(Options{Speed: sp.speed})
	rows := synthRows(sp)
	for i := range rows {
		m.Add(&rows[i])
	}
	return m, m.Summary(RunInfo{})
}

var compareBase = synthSpec{n: 400, rate: 20, ttftMS: 100, ttftSigma: 0.4, itlMS: 20, maxOut: 40, errRate: 0.01}

func TestCompareNamesTheSlower(t *testing.T) {
	fast := compareBase
	fast.seed = 11
	slow := compareBase
	slow.seed = 12
	slow.ttftMS, slow.itlMS = 150, 24 // a slower cost model: prefill +50%, decode +20%

	ma, sa := metricsOf(t, fast)
	mb, sb := metricsOf(t, slow)
	c := Compare(ma, mb, sa, sb, CompareOptions{})
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
	c = Compare(mb, ma, sb, sa, CompareOptions{})
	if c.Slower != "A" || !strings.HasPrefix(c.Verdict, "A is slower: p95 TTFT +") {
		t.Errorf("swapped: verdict %q", c.Verdict)
	}

	var buf bytes.Buffer
	if err := WriteCompareTable(&buf, c); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "verdict: A is slower") || !strings.Contains(buf.String(), "Mann-Whitney") {
		t.Errorf("table:\n%s", buf.String())
	}
	buf.Reset()
	if err := WriteCompareHTML(&buf, c, ReportOptions{NoEmbedFont: true}); err != nil {
		t.Fatal(err)
	}
	if *reportDir != "" {
		var full bytes.Buffer
		if err := WriteCompareHTML(&full, c, ReportOptions{}); err != nil {
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
	c := Compare(ma, mb, sa, sb, CompareOptions{})
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
		if Compare(ma, mb, sa, sb, CompareOptions{Resamples: 1000}).Slower != "" {
			claims++
		}
	}
	if claims > 6 {
		t.Errorf("claimed a difference in %d of %d same-distribution pairs", claims, pairs)
	}
	t.Logf("false claims: %d of %d", claims, pairs)
}
