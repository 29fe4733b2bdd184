package rowfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/results"
)

// writeRows writes rows 0..n-1 and flushes, leaving the writer open (a run in progress).
func writeRows(t *testing.T, path string, n int) *Writer {
	t.Helper()
	w, err := NewWriterWith(path, WriterOptions{FlushRows: 7})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if err := w.Write(smallRow(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return w
}

// snapshot copies a run's files as a kill would leave them: requests.parquet without its
// footer (row groups only) and requests.journal.
func snapshot(t *testing.T, path string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "requests.parquet")
	for _, p := range []string{path, JournalPath(path)} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(filepath.Dir(dst), filepath.Base(p)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func wantRows(t *testing.T, path string, n int) {
	t.Helper()
	got, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]results.Row, n)
	for i := range want {
		want[i] = smallRow(i)
	}
	normalize(got)
	normalize(want)
	if !sameRows(got, want) {
		t.Fatalf("%s: %d rows, want rows 0..%d once each", path, len(got), n-1)
	}
}

// A killed run's partial Parquet file (row groups, no footer) is replaced by the journal's
// rows, each once; a second Recover finds the rebuilt file and does nothing.
func TestRecoverCutRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "requests.parquet")
	w := writeRows(t, path, 40)
	cut := snapshot(t, path)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadAll(cut); err == nil {
		t.Fatal("the cut file reads without recovery")
	}
	rec, err := Recover(cut)
	if err != nil || rec == nil || !rec.Rebuilt || rec.Rows != 40 || rec.Dropped != "" || rec.From != "requests.journal" {
		t.Fatalf("recover: %+v, %v", rec, err)
	}
	if !strings.Contains(rec.String(), "run was cut (no clean close): recovered 40 rows from requests.journal") {
		t.Fatalf("message %q", rec)
	}
	wantRows(t, cut, 40)
	before, _ := os.ReadFile(cut)
	again, err := Recover(cut)
	if err != nil || again == nil || again.Rebuilt || again.Rows != 40 || !again.JournalCreated.Equal(rec.JournalCreated) {
		t.Fatalf("second recover: %+v, %v", again, err)
	}
	if after, _ := os.ReadFile(cut); !bytes.Equal(before, after) {
		t.Fatal("second recover rewrote the file")
	}
	// With the journal gone the rebuilt file still says it was recovered.
	os.Remove(JournalPath(cut))
	if r, err := Recover(cut); err != nil || r == nil || r.Rows != 40 {
		t.Fatalf("without the journal: %+v, %v", r, err)
	}
}

// A clean Close removes the journal; one left over (a kill between the footer and the
// removal) is not counted again: the complete file carries its id.
func TestRecoverCleanCloseNotDoubleCounted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "requests.parquet")
	w := writeRows(t, path, 25)
	left, err := os.ReadFile(JournalPath(path))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(JournalPath(path)); !os.IsNotExist(err) {
		t.Fatalf("journal after a clean close: %v", err)
	}
	if rec, err := Recover(path); rec != nil || err != nil {
		t.Fatalf("clean run: %+v, %v", rec, err)
	}
	if err := os.WriteFile(JournalPath(path), left, 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	if rec, err := Recover(path); rec != nil || err != nil {
		t.Fatalf("clean run with its journal left over: %+v, %v", rec, err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("the complete file was rewritten")
	}
	wantRows(t, path, 25)
}

// A complete file of an earlier run in the same folder is not the cut run's: the journal is.
func TestRecoverJournalIsTheTruth(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "requests.parquet")
	old := writeRows(t, path, 30)
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	oldFile, _ := os.ReadFile(path)
	w := writeRows(t, path, 3)
	cut := snapshot(t, path)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// The kill came just after the journal was made, before the old file was truncated.
	if err := os.WriteFile(cut, oldFile, 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := Recover(cut)
	if err != nil || rec == nil || rec.Rows != 3 {
		t.Fatalf("recover: %+v, %v", rec, err)
	}
	wantRows(t, cut, 3)
}

func TestRecoverNothingToDo(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "requests.parquet")
	if rec, err := Recover(path); rec != nil || err != nil {
		t.Fatalf("empty folder: %+v, %v", rec, err)
	}
	w, err := NewWriterWith(path, WriterOptions{NoJournal: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(JournalPath(path)); !os.IsNotExist(err) {
		t.Fatalf("NoJournal made a journal: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if rec, err := Recover(path); rec != nil || err != nil {
		t.Fatalf("file without a journal: %+v, %v", rec, err)
	}
	if err := os.WriteFile(JournalPath(path), []byte("not a journal at all, but long enough"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Recover(path); err == nil || !strings.Contains(err.Error(), "requests.journal") {
		t.Fatalf("garbage journal: %v", err)
	}
}

// A run still going is left alone: its journal is locked.
func TestRecoverLiveRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "requests.parquet")
	w := writeRows(t, path, 5)
	defer w.Close()
	if _, err := Recover(path); err == nil || !strings.Contains(err.Error(), "still writing") {
		t.Fatalf("recover of a live run: %v", err)
	}
}
