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

// The APIs the requests went to reach both too, in their order, an embeddings request with
// its prompt tokens and no TTFT; a run of one API shows no such table.
func TestAPIsWritten(t *testing.T) {
	m := analysis.NewMetrics(analysis.Options{})
	rows := testenv.PopulationRows()
	for i, api := range []string{"messages", "chat", "embeddings", "responses", "chat"} {
		rows[i].API = api
	}
	rows[2].CompletionTokens, rows[2].TargetOutputTokens = 0, 0
	for i := range rows {
		m.Add(&rows[i])
	}
	s := m.Summary(analysis.RunInfo{Options: "logged"})
	if got := analysis.APINames(s.APIs); strings.Join(got, ",") != "chat,responses,messages,embeddings" {
		t.Fatalf("APIs %v", got)
	}
	if e := s.APIs["embeddings"]; e.TTFT != nil || e.PromptTokens != 100 || e.OK != 1 {
		t.Fatalf("embeddings %+v", e)
	}
	var table bytes.Buffer
	if err := WriteTable(&table, s); err != nil {
		t.Fatal(err)
	}
	tt := table.String()
	if i, j := strings.Index(tt, "\nresponses "), strings.Index(tt, "\nembeddings "); !strings.Contains(tt, "\napi ") || i < 0 || j < i {
		t.Fatalf("table:\n%s", tt)
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, m, s, Options{NoEmbedFont: true}); err != nil {
		t.Fatal(err)
	}
	if h := page.String(); !strings.Contains(h, `<h2 id="apis">`) || !strings.Contains(h, "<td>embeddings</td>") {
		t.Fatal("report.html has no APIs table")
	}
	one := analysis.NewMetrics(analysis.Options{})
	for _, r := range testenv.PopulationRows() {
		r.API = "chat"
		one.Add(&r)
	}
	table.Reset()
	if err := WriteTable(&table, one.Summary(analysis.RunInfo{})); err != nil || strings.Contains(table.String(), "\napi ") {
		t.Fatalf("one API: %v\n%s", err, table.String())
	}
}
