package trace

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/internal/testenv"
)

// TestReaderInflatedRowCount: a footer claiming a billion rows in a group of ten (valid Thrift,
// so no footer check can tell) is an error naming the column, and the reader does not
// allocate for the claimed rows first (it asked for 77 GB before).
func TestReaderInflatedRowCount(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for i := range 10 {
		if err := w.Write(Record{Timestamp: time.Duration(i) * time.Millisecond, PromptTokens: 5, BlockHashes: []uint64{1, 2}, BlockSize: 512}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	body, md := testenv.ParquetFooter(t, buf.Bytes())
	md.RowGroups[0].NumRows, md.NumRows = 1<<30, 1<<30
	out := testenv.WithParquetFooter(t, body, md)

	var err error
	n := testenv.Allocated(func() {
		var r *Reader
		if r, err = NewReader(bytes.NewReader(out), int64(len(out)), "inflated.parquet"); err == nil {
			_, err = r.Next()
		}
	})
	if err == nil || !strings.Contains(err.Error(), "inflated.parquet: row group 0: column 0 has 10 values for 1073741824 rows") {
		t.Fatalf("got %v", err)
	}
	if n > 256<<20 {
		t.Fatalf("%d bytes allocated to refuse it", n)
	}
}
