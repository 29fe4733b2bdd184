package analysis

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/llm-replay/replay/results"
)

// writeRun writes rows to dir/requests.parquet through the real results writer.
func writeRun(t *testing.T, dir string, rows []results.Row) {
	t.Helper()
	w, err := results.NewWriter(filepath.Join(dir, RequestsFile))
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

func TestLoadDirMatchesInMemory(t *testing.T) {
	dir := t.TempDir()
	if *reportDir != "" {
		dir = *reportDir
	}
	writeRun(t, dir, synthRows(goldenSpec))
	m, s := goldenMetrics(t)
	// A run's summary.json carries the speed, SLO and metadata that report regenerates from.
	prev := *s
	prev.Requests.NotSent = 4
	if err := WriteSummary(dir, &prev); err != nil {
		t.Fatal(err)
	}
	lm, info, err := LoadDir(dir, Options{CostPerHour: 2.5, GPUs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if info.Speed != goldenSpec.speed || info.SLO != s.Run.SLO || info.NotSent != 4 || info.Model != "synthetic" {
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
	_, info, err = LoadDir(dir, Options{Speed: 4})
	if err != nil || info.Speed != 4 {
		t.Errorf("speed override: %v %v", info.Speed, err)
	}
}

func TestLoadDirErrors(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := LoadDir(dir, Options{}); err == nil {
		t.Error("no requests.parquet: no error")
	}
	if err := os.WriteFile(filepath.Join(dir, RequestsFile), []byte("not parquet at all, no"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadDir(dir, Options{}); err == nil {
		t.Error("garbage requests.parquet: no error")
	}
	if err := os.WriteFile(filepath.Join(dir, SummaryFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadDir(dir, Options{}); err == nil {
		t.Error("broken summary.json: no error")
	}
}
