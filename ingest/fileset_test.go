package ingest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeMooncake writes a Mooncake file of records at the given milliseconds.
func writeMooncake(t *testing.T, path string, ms ...int) {
	t.Helper()
	var b strings.Builder
	for i, m := range ms {
		fmt.Fprintf(&b, `{"timestamp": %d, "input_length": %d, "output_length": 1, "hash_ids": []}`+"\n", m, 100+i)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readSet reads files as one log and returns the records' (time, file, line).
func readSet(t *testing.T, path string, o Options) ([]string, *setReader) {
	t.Helper()
	r, err := Open(path, o)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []string
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%v %s:%d", rec.Timestamp, filepath.Base(rec.Source), rec.Line))
	}
	s, _ := r.(*setReader)
	return got, s
}

// TestSetOrder: files that overlap in time interleave; records of one instant come by file
// name, then line; times count from the earliest record of any file.
func TestSetOrder(t *testing.T) {
	dir := t.TempDir()
	writeMooncake(t, filepath.Join(dir, "b.jsonl"), 100, 200, 300)
	writeMooncake(t, filepath.Join(dir, "a.jsonl"), 200, 250)
	writeMooncake(t, filepath.Join(dir, "sub", "c.jsonl"), 50, 200)
	got, _ := readSet(t, dir, Options{})
	want := []string{"0s c.jsonl:1", "50ms b.jsonl:1", "150ms a.jsonl:1", "150ms b.jsonl:2", "150ms c.jsonl:2", "200ms a.jsonl:2", "250ms b.jsonl:3"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSetBoundedMemory: a day of consecutive files is read with at most two open at once.
func TestSetBoundedMemory(t *testing.T) {
	dir := t.TempDir()
	for m := range 200 {
		writeMooncake(t, filepath.Join(dir, fmt.Sprintf("%04d.jsonl", m)), m*60_000, m*60_000+30_000, m*60_000+59_999)
	}
	got, s := readSet(t, dir, Options{})
	if len(got) != 600 || s == nil || s.maxOpen > 2 {
		t.Fatalf("%d records, set reader %v with up to %d files open; want 600 with at most 2", len(got), s != nil, s.maxOpen)
	}
	if got[599] != fmt.Sprint(199*time.Minute+59_999*time.Millisecond, " 0199.jsonl:3") {
		t.Errorf("last record %s", got[599])
	}
}

// TestSetCounts: each file's counts, a file with no record (an empty minute) among them, and
// under --on-error skip a file whose every row is bad; under fail, its error names the file
// and line.
func TestSetCounts(t *testing.T) {
	dir := t.TempDir()
	writeMooncake(t, filepath.Join(dir, "a.jsonl"), 0, 10)
	os.WriteFile(filepath.Join(dir, "b.jsonl"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "c.jsonl"), []byte(`{"timestamp": 5, "input_length": -1, "output_length": 1}`+"\n"), 0o644)
	r, err := Open(dir, Options{Format: FormatMooncake, OnError: OnErrorSkip})
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := r.Next(); err != nil {
			break
		}
	}
	c := r.Counts()
	r.Close()
	if c.Records != 2 || c.Rejected != 1 || len(c.Files) != 3 || c.Files[2].Rejected != 1 || c.Files[0].Records != 2 {
		t.Fatalf("counts %+v", c)
	}
	_, err = Open(dir, Options{Format: FormatMooncake})
	if err == nil || !strings.Contains(err.Error(), "c.jsonl:1") {
		t.Fatalf("err = %v, want c.jsonl:1 named", err)
	}
}

// TestSetSkipsUnreadableFile: under --on-error skip, a file of the folder that is no log of
// any format is one rejection, named, and the other files are read; a file whose every row
// is bad still has its rows quarantined. Under fail, it is the error, naming the file.
func TestSetSkipsUnreadableFile(t *testing.T) {
	dir := t.TempDir()
	writeMooncake(t, filepath.Join(dir, "a.jsonl"), 0, 10)
	os.WriteFile(filepath.Join(dir, "b.bin"), []byte{0, 1, 2, 3, 0xff}, 0o644)
	bad := `{"timestamp": 5, "input_length": -1, "output_length": 1, "hash_ids": []}`
	os.WriteFile(filepath.Join(dir, "c.jsonl"), []byte(bad+"\n"), 0o644)
	q := filepath.Join(t.TempDir(), "q.jsonl")
	r, err := Open(dir, Options{OnError: OnErrorSkip, QuarantinePath: q})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		if _, err := r.Next(); err != nil {
			break
		}
		n++
	}
	c := r.Counts()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if n != 2 || c.Rejected != 2 || c.Files[1].Rejected != 1 || !strings.Contains(strings.Join(c.Errors, "\n"), "b.bin") {
		t.Fatalf("%d records, counts %+v", n, c)
	}
	if got, _ := os.ReadFile(q); string(got) != bad+"\n" {
		t.Errorf("quarantine %q, want the bad row", got)
	}
	if _, err := Open(dir, Options{}); err == nil || !strings.Contains(err.Error(), "b.bin") {
		t.Fatalf("under fail: %v, want b.bin named", err)
	}
}
