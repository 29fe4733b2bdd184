package testenv

import (
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// ParquetFooter splits a Parquet file into everything before its footer and the footer's
// metadata, decoded afresh so a test may edit it; WithParquetFooter puts a file back together.
// Tests damage files this way: a footer that is valid Thrift but claims what the data is not.
func ParquetFooter(tb testing.TB, file []byte) (body []byte, md *format.FileMetaData) {
	tb.Helper()
	if len(file) < 12 {
		tb.Fatalf("%d bytes is not a Parquet file", len(file))
	}
	n := int(binary.LittleEndian.Uint32(file[len(file)-8:]))
	end := len(file) - 8
	md = new(format.FileMetaData)
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), file[end-n:end], md); err != nil {
		tb.Fatal(err)
	}
	return file[: end-n : end-n], md
}

// WithParquetFooter returns body followed by md as the file's footer.
func WithParquetFooter(tb testing.TB, body []byte, md *format.FileMetaData) []byte {
	tb.Helper()
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), md)
	if err != nil {
		tb.Fatal(err)
	}
	out := append(append([]byte(nil), body...), footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...)
}

// Allocated is how many bytes fn allocates.
func Allocated(fn func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	fn()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}
