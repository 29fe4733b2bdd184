package rowfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// olderRow is a row of an older build's requests.parquet: without the source line, the
// population or the cancelled and unforced flags.
type olderRow struct {
	RequestID        string `parquet:"request_id"`
	SentNS           int64  `parquet:"sent_ns"`
	DoneNS           int64  `parquet:"done_ns"`
	CompletionTokens int32  `parquet:"completion_tokens"`
	ErrorClass       string `parquet:"error_class,optional"`
}

// A requests.parquet written before the columns line, population, cancelled_as_logged and
// unforced existed still reads, with those fields zero (so `replay report` works on old runs).
func TestReadOlderFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "requests.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[olderRow](f)
	if _, err := w.Write([]olderRow{{RequestID: "7", SentNS: 10, DoneNS: 90, CompletionTokens: 4}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	r := rows[0]
	if r.RequestID != "7" || r.DoneNS != 90 || r.CompletionTokens != 4 {
		t.Fatalf("row %+v", r)
	}
	if r.Line != 0 || r.Population != "" || r.CancelledAsLogged || r.Unforced || !r.Streamed() {
		t.Fatalf("new fields of an older row: %+v", r)
	}
}
