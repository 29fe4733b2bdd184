package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/internal/testenv"
)

// The populations reach the terminal table and report.html, streamed first.
func TestPopulationsWritten(t *testing.T) {
	m := analysis.NewMetrics(analysis.Options{})
	rows := testenv.PopulationRows()
	for i := range rows {
		m.Add(&rows[i])
	}
	s := m.Summary(analysis.RunInfo{Options: "logged"})
	var table bytes.Buffer
	if err := WriteTable(&table, s); err != nil {
		t.Fatal(err)
	}
	tt := table.String()
	if i, j := strings.Index(tt, "stream/tools"), strings.Index(tt, "nostream/json"); i < 0 || j < i ||
		!strings.Contains(tt, "cancelled as logged 1") || !strings.Contains(tt, "(1 unforced)") {
		t.Fatalf("table:\n%s", tt)
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, m, s, Options{NoEmbedFont: true}); err != nil {
		t.Fatal(err)
	}
	if h := page.String(); !strings.Contains(h, `<h2 id="populations">`) || !strings.Contains(h, "<td>nostream/json</td>") {
		t.Fatal("report.html has no populations table")
	}
}
