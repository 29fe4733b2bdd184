package runload

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/runfolder"
)

// row is an answered request: sent at i ms, first token 50 ms later, done 10 ms after that.
func row(i int) results.Row {
	sent := int64(i) * int64(time.Millisecond)
	first, last := sent+50*int64(time.Millisecond), sent+60*int64(time.Millisecond)
	return results.Row{
		RequestID: fmt.Sprintf("r%d", i), OriginalTimestampNS: sent, ScheduledNS: sent, SentNS: sent,
		FirstTokenNS: first, LastTokenNS: last, DoneNS: last, ChunkNS: []int64{first, last},
		TargetPromptTokens: 100, TargetOutputTokens: 2, PromptTokens: 100, CompletionTokens: 2, HTTPStatus: 200,
	}
}

// writeRows writes n rows to dir/requests.parquet; with cut, the folder is left as a killed
// run leaves it: the file without its footer, and the journal beside it.
func writeRows(t *testing.T, dir string, n int, cut bool) {
	t.Helper()
	path := filepath.Join(dir, runfolder.Requests)
	live := path
	if cut {
		live = filepath.Join(t.TempDir(), runfolder.Requests)
	}
	w, err := rowfile.NewWriter(live)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := w.Write(row(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if cut {
		for _, p := range []string{live, rowfile.JournalPath(live)} {
			b, err := os.ReadFile(p)
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, filepath.Base(p)), b, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// LoadDir reads every row of a closed run, recovers a cut one first and says so, and fails
// on a folder without rows.
func TestLoadDir(t *testing.T) {
	closed, cut := t.TempDir(), t.TempDir()
	writeRows(t, closed, 20, false)
	writeRows(t, cut, 30, true)
	for _, c := range []struct {
		dir       string
		rows      int64
		recovered bool
	}{{closed, 20, false}, {cut, 30, true}} {
		m, info, err := LoadDir(c.dir, analysis.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if s := m.Summary(info); s.Requests.Total != c.rows || s.Requests.OK != c.rows || info.Recovered != c.recovered {
			t.Errorf("%s: %d requests (%d ok), recovered %v; want %d, recovered %v",
				c.dir, s.Requests.Total, s.Requests.OK, info.Recovered, c.rows, c.recovered)
		}
	}
	if _, _, err := LoadDir(t.TempDir(), analysis.Options{}); err == nil {
		t.Error("a folder without requests.parquet: no error")
	}
}

// ReadRequestValues pairs nothing up itself: each folder's ok rows become its values.
func TestReadRequestValues(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	writeRows(t, a, 5, false)
	writeRows(t, b, 7, false)
	va, vb, err := ReadRequestValues(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(va.TTFT) != 5 || len(vb.TTFT) != 7 || va.TTFT["r3"] != 50 {
		t.Fatalf("values: %d and %d TTFTs, r3's %v ms", len(va.TTFT), len(vb.TTFT), va.TTFT["r3"])
	}
	if _, _, err := ReadRequestValues(a, t.TempDir()); err == nil {
		t.Error("B without requests.parquet: no error")
	}
}

// LoadDir, whose rows share one array of chunk offsets per batch, sums a run up exactly as
// the same rows each with their own slices do (read by rowfile.Rows, and as written): the
// aggregation keeps no row's slices.
func TestLoadDirSharedChunksSameSummary(t *testing.T) {
	dir := t.TempDir()
	rows := testenv.SynthRows(testenv.SynthRun{N: 3000, Seed: 11, Rate: 50, TTFTMS: 120, TTFTSigma: 0.5,
		ITLMS: 20, MaxOut: 200, ErrRate: 0.02, Warmup: 5})
	path := filepath.Join(dir, runfolder.Requests)
	w, err := rowfile.NewWriterWith(path, rowfile.WriterOptions{FlushRows: 700})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		r.ChunkNS = slices.Clone(r.ChunkNS) // the writer owns what it is given
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	summary := func(m *analysis.Metrics, info analysis.RunInfo, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(m.Summary(info))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	opts := analysis.Options{SLO: analysis.SLO{TTFT: 200 * time.Millisecond, ITL: 40 * time.Millisecond}}
	shared := summary(LoadDir(dir, opts))
	own := summary(analysis.LoadRows(dir, nil, rowfile.Rows(path), opts))
	written := summary(analysis.LoadRows(dir, nil, func(yield func(results.Row, error) bool) {
		for _, r := range rows {
			if !yield(r, nil) {
				return
			}
		}
	}, opts))
	if shared != own || own != written {
		t.Fatalf("summaries differ:\nshared:  %s\nown:     %s\nwritten: %s", shared, own, written)
	}
}

// LoadDir runs the collector at LoadGCPercent and puts the earlier target back, also when
// loads overlap; a target the user set with $GOGC is left alone.
func TestLoadDirGCTarget(t *testing.T) {
	dir := t.TempDir()
	writeRows(t, dir, 5, false)
	t.Setenv("GOGC", "") // as unset: holdLoadGC reads only whether it is empty
	prev := debug.SetGCPercent(77)
	defer debug.SetGCPercent(prev)
	outer := holdLoadGC()
	if got := debug.SetGCPercent(LoadGCPercent); got != LoadGCPercent {
		t.Fatalf("held: GC target %d, want %d", got, LoadGCPercent)
	}
	if _, _, err := LoadDir(dir, analysis.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := debug.SetGCPercent(LoadGCPercent); got != LoadGCPercent {
		t.Fatalf("after an overlapping load: GC target %d, want %d still", got, LoadGCPercent)
	}
	outer()
	outer() // releasing twice is once
	if got := debug.SetGCPercent(77); got != 77 {
		t.Fatalf("after the loads: GC target %d, want 77 back", got)
	}
	t.Setenv("GOGC", "300")
	release := holdLoadGC()
	if got := debug.SetGCPercent(77); got != 77 {
		t.Fatalf("with $GOGC set: GC target %d, want 77 left alone", got)
	}
	release()
}
