package rowfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/llm-replay/replay/results"
)

// Every leaf column of results.Row is in the column reader's table with its kind, so the
// files this build writes are read column by column.
func TestColumnFieldsCoverRow(t *testing.T) {
	fs, ok := columnFields(rowSchema)
	if !ok {
		t.Fatalf("results.Row's own schema is not read by the column reader: a field of Row is missing from rowFields or has another kind")
	}
	if len(fs) != len(rowSchema.Columns()) || len(rowFields) != len(fs) {
		t.Fatalf("%d fields for %d columns (%d in the table)", len(fs), len(rowSchema.Columns()), len(rowFields))
	}
	for _, f := range fs {
		set := 0
		for _, p := range []bool{f.i64 != nil, f.i32 != nil, f.b != nil, f.s != nil} {
			if p {
				set++
			}
		}
		if want := map[bool]int{true: 0, false: 1}[f.path == chunkPath]; set != want {
			t.Errorf("%s: %d setters", f.path, set)
		}
	}
}

// variedRows are rows in every shape the writer sees: nil, empty and long chunk lists,
// errors with messages, retries, kept prompts, every population and API, flags both ways,
// negative usage, and a row with every column set.
func variedRows(n int) []results.Row {
	rows := make([]results.Row, 0, n+4)
	for i := 0; i < n; i++ {
		r := makeRow(i)
		switch i % 9 {
		case 1:
			r.ChunkNS = nil
		case 2:
			r.ChunkNS = []int64{}
		case 3:
			r.ChunkNS = r.ChunkNS[:min(1, len(r.ChunkNS))]
		}
		r.API = results.APIs[i%len(results.APIs)]
		if i%23 == 0 {
			r.API, r.Population = "", "" // an older writer's row within a new file
		}
		if i%29 == 0 {
			r.ErrorClass, r.ErrorMessage = "timeout", ""
		}
		rows = append(rows, r)
	}
	rows = append(rows, results.Row{}, results.Row{RequestID: "empty-strings", ChunkNS: []int64{}})
	all := makeRow(1)
	all.SessionID, all.ErrorClass, all.ErrorMessage, all.Prompt = "s", "http_5xx", "boom", "p"
	all.Warmup, all.Retried, all.CancelledAsLogged, all.Unforced = true, true, true, true
	all.ClientBacklogNS, all.RetryAfterNS, all.Attempt, all.API = 5, 6, 7, "messages"
	all.ChunkNS = []int64{-1, 0, 1 << 62}
	return append(rows, all)
}

// writeFile writes rows with the run's writer (row groups of flushRows) and returns the path.
func writeFile(t testing.TB, rows []results.Row, flushRows int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "requests.parquet")
	w, err := NewWriterWith(path, WriterOptions{FlushRows: flushRows, NoJournal: true})
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
	return path
}

// readBoth reads path by the column reader and by parquet-go's generic reader.
func readBoth(t *testing.T, path string) (col, gen []results.Row) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []readMode{byColumns, byColumnsShared, byGeneric} {
		var rows []results.Row
		err := readWith(path, bytes.NewReader(b), int64(len(b)), mode, func(r results.Row) error {
			if mode == byColumnsShared { // its offsets last only until fn returns: copy them
				r.ChunkNS = append(make([]int64, 0, len(r.ChunkNS)), r.ChunkNS...)
			}
			rows = append(rows, r)
			return nil
		})
		if err != nil {
			t.Fatalf("mode %d: %v", mode, err)
		}
		switch mode {
		case byColumns:
			col = rows
		case byColumnsShared:
			sameAsGeneric(t, rows, col)
		case byGeneric:
			gen = rows
		}
	}
	return col, gen
}

// sameAsGeneric fails unless the two readers gave the same rows, row by row.
func sameAsGeneric(t *testing.T, col, gen []results.Row) {
	t.Helper()
	if len(col) != len(gen) {
		t.Fatalf("column reader: %d rows, generic reader: %d", len(col), len(gen))
	}
	for i := range col {
		if !reflect.DeepEqual(col[i], gen[i]) {
			t.Fatalf("row %d differs:\ncolumns: %#v\ngeneric: %#v", i, col[i], gen[i])
		}
	}
}

// The column reader gives exactly the generic reader's rows for files the writer makes, in
// row groups of one row, a few rows and many.
func TestColumnReaderMatchesGeneric(t *testing.T) {
	rows := variedRows(3000)
	for _, flush := range []int{1, 37, 10000} {
		t.Run(fmt.Sprint(flush), func(t *testing.T) {
			path := writeFile(t, rows, flush)
			col, gen := readBoth(t, path)
			sameAsGeneric(t, col, gen)
			if len(col) != len(rows) {
				t.Fatalf("%d rows of %d", len(col), len(rows))
			}
		})
	}
}

// A real run's file, when one is at hand (REPLAY_ROWS_FILE, else a 4-hour run's copy in /tmp):
// the two readers agree on every row.
func TestColumnReaderMatchesGenericRealRun(t *testing.T) {
	path := os.Getenv("REPLAY_ROWS_FILE")
	if path == "" {
		path = "/tmp/r4h-rep/requests.parquet"
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no real run's file: %v", err)
	}
	if testing.Short() {
		t.Skip("reads a real run twice")
	}
	col, gen := readBoth(t, path)
	sameAsGeneric(t, col, gen)
	t.Logf("%d rows of %s agree", len(col), path)
}

// otherRow has columns of results.Row's names written another way: numbers and flags through
// a dictionary, strings without one, small V1 pages (a list may run across pages). Its
// columns are Row's, so the column reader reads it; it must agree with the generic reader.
type otherRow struct {
	RequestID string  `parquet:"request_id,dict"`
	Turn      int32   `parquet:"turn,dict"`
	SentNS    int64   `parquet:"sent_ns,dict"`
	Warmup    bool    `parquet:"warmup"`
	ChunkNS   []int64 `parquet:"chunk_ns,list"`
	Endpoint  string  `parquet:"endpoint"`
	API       string  `parquet:"api,optional"`
	Unforced  bool    `parquet:"unforced"`
}

func TestColumnReaderOtherEncodings(t *testing.T) {
	var rows []otherRow
	for i := 0; i < 2000; i++ {
		r := makeRow(i)
		rows = append(rows, otherRow{RequestID: r.RequestID, Turn: r.Turn % 3, SentNS: int64(i % 7), Warmup: r.Warmup,
			ChunkNS: r.ChunkNS, Endpoint: r.Endpoint, API: results.APIs[i%3], Unforced: r.Unforced})
	}
	for _, version := range []int{2, 1} {
		path := filepath.Join(t.TempDir(), "requests.parquet")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w := parquet.NewGenericWriter[otherRow](f, parquet.DataPageVersion(version), parquet.PageBufferSize(512), parquet.MaxRowsPerRowGroup(700))
		if _, err := w.Write(rows); err != nil {
			t.Fatal(err)
		}
		if err := errors.Join(w.Close(), f.Close()); err != nil {
			t.Fatal(err)
		}
		pf := openFile(t, path)
		if _, ok := columnFields(pf.Schema()); !ok {
			t.Fatalf("page version %d: the column reader does not take a file of Row's columns", version)
		}
		col, gen := readBoth(t, path)
		sameAsGeneric(t, col, gen)
		if col[5].API != "chat" && col[5].API != "completions" && col[5].API != "responses" {
			t.Fatalf("api %q", col[5].API)
		}
	}
}

// An older build's file, with fewer columns, reads the same by both; one whose column has
// another type is left to the generic reader, which converts it.
func TestColumnReaderOlderAndRetyped(t *testing.T) {
	older := filepath.Join(t.TempDir(), "requests.parquet")
	writeStructs(t, older, []olderRow{{RequestID: "7", SentNS: 10, DoneNS: 90, CompletionTokens: 4}, {RequestID: "8", ErrorClass: "timeout"}})
	if _, ok := columnFields(openFile(t, older).Schema()); !ok {
		t.Fatalf("an older file of Row's columns is not read by columns")
	}
	col, gen := readBoth(t, older)
	sameAsGeneric(t, col, gen)

	type retyped struct {
		RequestID string `parquet:"request_id"`
		Turn      int64  `parquet:"turn"` // int32 in Row
	}
	other := filepath.Join(t.TempDir(), "requests.parquet")
	writeStructs(t, other, []retyped{{RequestID: "1", Turn: 3}})
	if _, ok := columnFields(openFile(t, other).Schema()); ok {
		t.Fatalf("a column of another type is read by columns")
	}
	rows, err := ReadAll(other)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Turn != 3 || rows[0].RequestID != "1" {
		t.Fatalf("retyped file read as %+v", rows)
	}
}

func writeStructs[T any](t *testing.T, path string, rows []T) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(w.Close(), f.Close()); err != nil {
		t.Fatal(err)
	}
}

func openFile(t *testing.T, path string) *parquet.File {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pf
}

// A damaged column is an error naming the file, the row group and the column.
func TestColumnReaderDamagedColumn(t *testing.T) {
	path := writeFile(t, variedRows(50), 10000)
	pf := openFile(t, path)
	// The footer claims more rows than the row group holds: the columns end first.
	md := pf.Metadata()
	if md.RowGroups[0].NumRows != 53 {
		t.Fatalf("row group of %d rows", md.RowGroups[0].NumRows)
	}
	err := readColumns(pf, mustFields(t, pf), false, new(int), func(results.Row) error { return nil })
	if err != nil {
		t.Fatalf("intact file: %v", err)
	}
	md.RowGroups[0].NumRows = 60
	err = readColumns(pf, mustFields(t, pf), false, new(int), func(results.Row) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "row group 0: column") {
		t.Fatalf("short columns: %v", err)
	}
}

func mustFields(t *testing.T, pf *parquet.File) []field {
	fs, ok := columnFields(pf.Schema())
	if !ok {
		t.Fatal("not read by columns")
	}
	return fs
}
