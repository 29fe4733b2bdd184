package rowfile

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/llm-replay/replay/results"
)

// Rows yields what ReadAll returns, in order; a break stops the read; a file that cannot be
// read ends the loop with one error naming it.
func TestRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "requests.parquet")
	w, err := NewWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 600; i++ { // more than one readBatch
		if err := w.Write(makeRow(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []results.Row
	for r, err := range Rows(path) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Rows gave %d rows, ReadAll %d, or they differ", len(got), len(want))
	}
	n := 0
	for _, err := range Rows(path) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 3 {
			break
		}
	}
	if n != 3 {
		t.Fatalf("break after 3 rows: saw %d", n)
	}
	var errs []error
	for _, err := range Rows(filepath.Join(t.TempDir(), "missing.parquet")) {
		errs = append(errs, err)
	}
	if len(errs) != 1 || errs[0] == nil || !strings.Contains(errs[0].Error(), "missing.parquet") {
		t.Fatalf("missing file: %v", errs)
	}
}
