package trace

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
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
	valid := buf.Bytes()
	f, err := parquet.OpenFile(bytes.NewReader(valid), int64(len(valid)))
	if err != nil {
		t.Fatal(err)
	}
	md := *f.Metadata()
	md.RowGroups = append(md.RowGroups[:0:0], md.RowGroups...)
	md.RowGroups[0].NumRows, md.NumRows = 1<<30, 1<<30
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		t.Fatal(err)
	}
	footerLen := int64(binary.LittleEndian.Uint32(valid[len(valid)-8:]))
	out := append(bytes.Clone(valid[:int64(len(valid))-8-footerLen]), footer...)
	out = append(binary.LittleEndian.AppendUint32(out, uint32(len(footer))), "PAR1"...)

	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	r, err := NewReader(bytes.NewReader(out), int64(len(out)), "inflated.parquet")
	if err == nil {
		_, err = r.Next()
	}
	runtime.ReadMemStats(&m1)
	if err == nil || !strings.Contains(err.Error(), "inflated.parquet: row group 0: column 0 has 10 values for 1073741824 rows") {
		t.Fatalf("got %v", err)
	}
	if n := m1.TotalAlloc - m0.TotalAlloc; n > 256<<20 {
		t.Fatalf("%d bytes allocated to refuse it", n)
	}
}
