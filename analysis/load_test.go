package analysis

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/runfolder"
)

// writeRun writes rows to dir/requests.parquet through the real results writer.
func writeRun(t *testing.T, dir string, rows []results.Row) {
	t.Helper()
	w, err := rowfile.NewWriter(filepath.Join(dir, runfolder.Requests))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// loadDir is runload.LoadDir (which imports analysis, so a test here cannot call it): the
// folder recovered, then its rows read by rowfile.
func loadDir(t *testing.T, dir string, o Options) (*Metrics, RunInfo, error) {
	t.Helper()
	path := filepath.Join(dir, runfolder.Requests)
	rec, err := rowfile.Recover(path)
	if err != nil {
		return nil, RunInfo{}, err
	}
	return LoadRows(dir, rec, rowfile.Rows(path), o)
}

func TestLoadRowsMatchesInMemory(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, testenv.SynthRows(testenv.GoldenRun))
	m, s := goldenMetrics(t)
	// A run's summary.json carries the speed, SLO and metadata that report regenerates from.
	prev := *s
	prev.Requests.NotSent = 4
	if err := WriteSummary(dir, &prev); err != nil {
		t.Fatal(err)
	}
	lm, info, err := loadDir(t, dir, Options{CostPerHour: 2.5, GPUs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if info.Speed != testenv.GoldenRun.Speed || info.SLO != s.Run.SLO || info.NotSent != 4 || info.Model != "synthetic" {
		t.Errorf("run info from summary.json: %+v", info)
	}
	got := lm.Summary(info)
	run := s.Run
	run.NotSent = 4
	want := m.Summary(run)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("summary from Parquet differs from the in-memory one:\n got %+v\nwant %+v", got, want)
	}

	// Flags override what the run recorded.
	_, info, err = loadDir(t, dir, Options{Speed: 4})
	if err != nil || info.Speed != 4 {
		t.Errorf("speed override: %v %v", info.Speed, err)
	}
}

func TestLoadRowsErrors(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := loadDir(t, dir, Options{}); err == nil {
		t.Error("no requests.parquet: no error")
	}
	if err := os.WriteFile(filepath.Join(dir, runfolder.Requests), []byte("not parquet at all, no"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := loadDir(t, dir, Options{}); err == nil {
		t.Error("garbage requests.parquet: no error")
	}
	if err := os.WriteFile(filepath.Join(dir, runfolder.Summary), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := loadDir(t, dir, Options{}); err == nil {
		t.Error("broken summary.json: no error")
	}
}

// cutRun leaves in dir what a run killed after writing rows leaves: requests.parquet without
// a footer and requests.journal.
func cutRun(t *testing.T, dir string, rows []results.Row) {
	t.Helper()
	live := filepath.Join(t.TempDir(), runfolder.Requests)
	w, err := rowfile.NewWriter(live)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{live, rowfile.JournalPath(live)} {
		b, err := os.ReadFile(p)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, filepath.Base(p)), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// A cut run is recovered and marked so in summary.json (report's tests hold that its page
// and table say so); the
// summary.json an earlier run left in the folder is not taken for its own.
func TestLoadRowsRecoversCutRun(t *testing.T) {
	dir := t.TempDir()
	stale := &Summary{Run: RunInfo{Speed: 9, Model: "earlier run", StartedAt: time.Now().Add(-time.Hour)}}
	if err := WriteSummary(dir, stale); err != nil {
		t.Fatal(err)
	}
	rows := testenv.SynthRows(testenv.GoldenRun)
	cutRun(t, dir, rows)
	m, info, err := loadDir(t, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !info.Recovered || info.Recovery == nil || !info.Recovery.Rebuilt || info.Recovery.Rows != int64(len(rows)) ||
		info.Model != "" || info.Speed == 9 || !info.StartedAt.Equal(info.Recovery.JournalCreated) {
		t.Fatalf("run info %+v, recovery %+v", info, info.Recovery)
	}
	if _, err := WriteRunData(dir, m, info); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, runfolder.Summary))
	var raw struct {
		Run map[string]any `json:"run"`
	}
	if err := json.Unmarshal(b, &raw); err != nil || raw.Run["recovered"] != true || raw.Run["recovery"] == nil {
		t.Fatalf("summary.json run: %v (%v)", raw.Run, err)
	}
	// Again: the rebuilt file is read as it is, and this run's summary.json is kept.
	_, again, err := loadDir(t, dir, Options{})
	if err != nil || !again.Recovered || again.Recovery.Rebuilt || again.Recovery.Rows != int64(len(rows)) || !again.StartedAt.Equal(info.StartedAt) {
		t.Fatalf("second load: %+v, %v", again, err)
	}
}
