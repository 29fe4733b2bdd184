package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/results"
)

const ms = int64(time.Millisecond)

// okRow is a successful request sent on schedule at sentMS whose first token came ttftMS later
// and which ended at the last chunk.
func okRow(id string, sentMS, ttftMS int64, chunkGapsMS ...int64) results.Row {
	sent := sentMS * ms
	first := sent + ttftMS*ms
	chunks := []int64{first}
	for _, g := range chunkGapsMS {
		chunks = append(chunks, chunks[len(chunks)-1]+g*ms)
	}
	last := chunks[len(chunks)-1]
	return results.Row{
		RequestID: id, OriginalTimestampNS: sent, ScheduledNS: sent, SentNS: sent,
		FirstTokenNS: first, LastTokenNS: last, DoneNS: last, ChunkNS: chunks,
		TargetPromptTokens: 100, TargetOutputTokens: int32(len(chunks)),
		PromptTokens: 100, CompletionTokens: int32(len(chunks)), HTTPStatus: 200,
	}
}

// mixedRows are one run's rows in three populations: streamed plain, non-streamed JSON (no
// chunk times: measured end to end), streamed tools sent unforced, and a request cancelled as
// its log says.
func mixedRows() []results.Row {
	plain := func(r results.Row) results.Row { r.Population = "stream/plain"; return r }
	a := plain(okRow("a", 0, 100, 10, 10))
	b := plain(okRow("b", 10, 300, 10))
	ns := results.Row{RequestID: "n", SentNS: 20 * ms, ScheduledNS: 20 * ms, DoneNS: 20*ms + 2000*ms,
		TargetPromptTokens: 100, TargetOutputTokens: 40, PromptTokens: 100, CompletionTokens: 40,
		HTTPStatus: 200, Population: "nostream/json"}
	tools := okRow("t", 30, 50, 10)
	tools.Population, tools.Unforced, tools.CompletionTokens = "stream/tools", true, 1 // stopped early
	cut := okRow("c", 40, 80, 10)
	cut.Population, cut.CancelledAsLogged, cut.DoneNS = "stream/plain", true, 40*ms+500*ms
	return []results.Row{a, b, ns, tools, cut}
}

// The populations reach the terminal table and report.html, streamed first.
func TestPopulationsWritten(t *testing.T) {
	m := analysis.NewMetrics(analysis.Options{})
	rows := mixedRows()
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
