package analysis

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results"
)

var (
	update    = flag.Bool("update", false, "rewrite the golden files under testdata/")
	reportDir = flag.String("report-dir", "", "also write the golden input's summary.json and full report.html (font embedded) here, to look at")
)

func goldenMetrics(t testing.TB) (*Metrics, *Summary) {
	slo, err := ParseSLO("ttft=250ms,itl=60ms,e2e=3s")
	if err != nil {
		t.Fatal(err)
	}
	m := NewMetrics(Options{Speed: goldenSpec.speed, SLO: slo, CostPerHour: 2.5, GPUs: 2})
	rows := synthRows(goldenSpec)
	for i := range rows {
		m.Add(&rows[i])
	}
	// The endpoint's queue as scraped from its /metrics: filling up, then draining.
	var samples []results.ServerSample
	for i, q := range []float64{0, 4, 9, 14, 12, 6, 1, 0} {
		samples = append(samples, results.ServerSample{OffsetS: float64(i) * 5, Values: map[string]float64{
			results.RequestsRunning: math.Min(q, 8), results.RequestsWaiting: math.Max(q-8, 0)}})
	}
	m.AddServerSamples(samples)
	ideal := NewIdealCounter()
	ideal.Add([]uint64{1, 2, 3}, 16, 48)
	ideal.Add([]uint64{1, 2, 4}, 16, 40)
	queried, hit := 614597.0, 230000.0
	s := m.Summary(RunInfo{Endpoint: "http://127.0.0.1:8000/v1", Model: "synthetic", API: "chat",
		Trace: "synthetic.jsonl", Simulated: true, Version: "test",
		StartedAt:   time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC),
		ServerCache: &ServerCache{MetricsURL: "http://127.0.0.1:8000/metrics", Scrapes: 31, QueriedTokens: &queried, HitTokens: &hit},
		IdealCache:  ideal.Result()})
	return m, s
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	testenv.Golden(t, filepath.Join("testdata", name), got, *update)
}

func TestReportGolden(t *testing.T) {
	m, s := goldenMetrics(t)
	var buf bytes.Buffer
	if err := WriteHTML(&buf, m, s, ReportOptions{NoEmbedFont: true}); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	// Offline: nothing is fetched from anywhere.
	for _, bad := range []string{"http://", "https://", "src=", "<script", "<link"} {
		for _, line := range strings.Split(html, "\n") {
			if strings.Contains(line, bad) && !strings.Contains(line, "xmlns") && !strings.Contains(line, "127.0.0.1:8000") {
				t.Errorf("report references %q: %.120s", bad, line)
				break
			}
		}
	}
	if n := strings.Count(html, "<svg"); n != 7 {
		t.Errorf("%d inline SVGs, want 7", n)
	}
	checkGolden(t, "report.golden.html", buf.Bytes())

	// Rendering twice gives the same bytes.
	var again bytes.Buffer
	if err := WriteHTML(&again, m, s, ReportOptions{NoEmbedFont: true}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), buf.Bytes()) {
		t.Error("report is not deterministic")
	}
}

func TestReportWithFont(t *testing.T) {
	m, s := goldenMetrics(t)
	dir := t.TempDir()
	if *reportDir != "" {
		dir = *reportDir
	}
	if _, err := WriteRunFiles(dir, m, s.Run); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "@font-face{font-family:\"Liberation Sans\"") {
		t.Error("font not embedded")
	}
	if len(b) > 1500*1024 {
		t.Errorf("report.html is %d bytes, want under 1.5 MB", len(b))
	}
	t.Logf("report.html %d bytes", len(b))
	if _, err := os.Stat(filepath.Join(dir, SummaryFile)); err != nil {
		t.Error(err)
	}
}

func TestTableGolden(t *testing.T) {
	_, s := goldenMetrics(t)
	var buf bytes.Buffer
	if err := WriteTable(&buf, s); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "table.golden.txt", buf.Bytes())
}

func TestReportEmptyRun(t *testing.T) {
	m := NewMetrics(Options{})
	s := m.Summary(RunInfo{})
	var buf bytes.Buffer
	if err := WriteHTML(&buf, m, s, ReportOptions{NoEmbedFont: true}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "<svg"); n != 7 {
		t.Errorf("empty run: %d SVGs, want 7", n)
	}
	if err := WriteTable(&bytes.Buffer{}, s); err != nil {
		t.Fatal(err)
	}
}
