package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/runfolder"
)

var (
	update    = flag.Bool("update", false, "rewrite the golden files under testdata/")
	reportDir = flag.String("report-dir", "", "also write the golden input's summary.json and full report.html (font embedded) here, to look at")
)

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	testenv.Golden(t, filepath.Join("testdata", name), got, *update)
}

func TestReportGolden(t *testing.T) {
	m, s := goldenMetrics(t)
	var buf bytes.Buffer
	if err := WriteHTML(&buf, m, s, Options{NoEmbedFont: true}); err != nil {
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
	if err := WriteHTML(&again, m, s, Options{NoEmbedFont: true}); err != nil {
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
	b, err := os.ReadFile(filepath.Join(dir, runfolder.Report))
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
	if _, err := os.Stat(filepath.Join(dir, runfolder.Summary)); err != nil {
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
	m := analysis.NewMetrics(analysis.Options{})
	s := m.Summary(analysis.RunInfo{})
	var buf bytes.Buffer
	if err := WriteHTML(&buf, m, s, Options{NoEmbedFont: true}); err != nil {
		t.Fatal(err)
	}
	// No empty chart: each plot is one line saying what it lacks.
	page := buf.String()
	if n := strings.Count(page, "<svg"); n != 0 {
		t.Errorf("empty run: %d SVGs, want none", n)
	}
	if n := strings.Count(page, `class="nodata"`); n != 7 {
		t.Errorf("empty run: %d lines in place of plots, want 7", n)
	}
	for _, want := range []string{`<p id="errors" class="nodata"><b>Errors by class</b>: no errors.</p>`, `<p id="ttft-hist" class="nodata">`} {
		if !strings.Contains(page, want) {
			t.Errorf("empty run: no %q", want)
		}
	}
	if err := WriteTable(&bytes.Buffer{}, s); err != nil {
		t.Fatal(err)
	}
}

// A run recovered from its journal says it was cut, on its page and in its table.
func TestReportSaysCut(t *testing.T) {
	m, s := goldenMetrics(t)
	s.Run.Recovered, s.Run.Recovery = true, &results.Recovery{Rebuilt: true, Rows: s.Requests.Total}
	var page, table bytes.Buffer
	if err := WriteHTML(&page, m, s, Options{NoEmbedFont: true}); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(&table, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "This run was cut before it closed") || !strings.Contains(table.String(), "cut before it closed") {
		t.Fatalf("report or table does not say the run was cut:\n%s", table.String())
	}
}
