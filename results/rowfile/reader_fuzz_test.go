package rowfile

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results"
)

var updateSeeds = flag.Bool("update-seeds", false, "rewrite testdata/fuzz/FuzzRead from freshly written files")

// smallFile returns the bytes of a closed results file holding rows 0..n-1.
func smallFile(tb testing.TB, n int) []byte {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "requests.parquet")
	w, err := NewWriterWith(path, WriterOptions{FlushRows: 2})
	if err != nil {
		tb.Fatal(err)
	}
	for i := 0; i < n; i++ {
		r := makeRow(i)
		if len(r.ChunkNS) > 4 {
			r.ChunkNS = r.ChunkNS[:4] // keep seeds small
		}
		if err := w.Write(r); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// FuzzRead feeds arbitrary bytes to the reader: it must return rows or an error naming the
// file, never panic. Seeds (testdata/fuzz/FuzzRead) are real files, whole and cut short.
func FuzzRead(f *testing.F) {
	valid := smallFile(f, 5)
	f.Add(valid)
	f.Add(valid[:len(valid)/2])
	f.Add([]byte("PAR1PAR1"))
	if *updateSeeds {
		dir := filepath.Join("testdata", "fuzz", "FuzzRead")
		os.MkdirAll(dir, 0o755)
		for name, b := range map[string][]byte{
			"valid_5rows": valid, "no_footer": valid[:len(valid)-40], "magic_only": []byte("PAR1PAR1"),
		} {
			data := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(b)))
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				f.Fatal(err)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		defer testenv.PanicAfter(10*time.Second, "reading fuzz.parquet")()
		var rows [2][]results.Row
		var errs [2]error
		for k, mode := range []readMode{byColumns, byGeneric} {
			errs[k] = readWith("fuzz.parquet", bytes.NewReader(b), int64(len(b)), mode, func(r results.Row) error {
				rows[k] = append(rows[k], r)
				return nil
			})
			if errs[k] != nil && !bytes.Contains([]byte(errs[k].Error()), []byte("fuzz.parquet")) {
				t.Fatalf("mode %d: error does not name the file: %v", mode, errs[k])
			}
		}
		// Where both readers take the bytes, they read the same rows: the column reader
		// decodes no value the generic one would read otherwise.
		if errs[0] == nil && errs[1] == nil && !reflect.DeepEqual(rows[0], rows[1]) {
			t.Fatalf("the column reader's %d rows differ from the generic reader's %d", len(rows[0]), len(rows[1]))
		}
	})
}
