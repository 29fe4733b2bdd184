package ingest

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/snappy"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/trace"
)

// The hash column alone, in the layouts BenchmarkHashPages compares. The list shape is the
// normalized trace's (a required list of required int64), so pandas, polars and DuckDB read
// each as a list column.
type (
	deltaHashes struct {
		H []uint64 `parquet:"block_hashes,list" parquet-element:",delta"`
	}
	plainHashes struct {
		H []uint64 `parquet:"block_hashes,list" parquet-element:",plain"`
	}
)

// BenchmarkHashPages is the floor under reading the 1M Mooncake-shaped rows (~31 hashes each)
// from Parquet: only parquet-go's decoding of the block_hashes pages (decompression, levels,
// values), no record built and no value copied, for the normalized trace's layout (delta,
// Snappy), plain with Snappy (pyarrow's default for integers) and plain uncompressed. Reading
// a whole row at 5M rows/s leaves 200 ns; parquet-nohash in BenchmarkIngest1M is what every
// other column and the pipeline cost.
func BenchmarkHashPages(b *testing.B) {
	make1M(b)
	dir := b.TempDir()
	layouts := []struct {
		name  string
		write func(path string, hashes [][]uint64) error
	}{
		{"delta-snappy", func(p string, hs [][]uint64) error {
			return writeRows(p, hashRows(hs, func(h []uint64) deltaHashes { return deltaHashes{h} }), parquet.Compression(&snappy.Codec{}), parquet.MaxRowsPerRowGroup(128*1024))
		}},
		{"plain-snappy", func(p string, hs [][]uint64) error {
			return writeRows(p, hashRows(hs, func(h []uint64) plainHashes { return plainHashes{h} }), parquet.Compression(&snappy.Codec{}), parquet.MaxRowsPerRowGroup(128*1024))
		}},
		{"plain-none", func(p string, hs [][]uint64) error {
			return writeRows(p, hashRows(hs, func(h []uint64) plainHashes { return plainHashes{h} }), parquet.Compression(&parquet.Uncompressed), parquet.MaxRowsPerRowGroup(128*1024))
		}},
	}
	recs, err := trace.ReadAll(bench1M.parquet)
	if err != nil {
		b.Fatal(err)
	}
	hashes := make([][]uint64, len(recs))
	for i, r := range recs {
		hashes[i] = r.BlockHashes
	}
	recs = nil
	for _, l := range layouts {
		p := filepath.Join(dir, l.name+".parquet")
		if err := l.write(p, hashes); err != nil {
			b.Fatal(err)
		}
		b.Run(l.name, func(b *testing.B) {
			st, err := os.Stat(p)
			if err != nil {
				b.Fatal(err)
			}
			var rows, values int64
			cpu0 := testenv.CPUTime()
			b.ResetTimer()
			for range b.N {
				r, v, err := readHashPages(p)
				if err != nil {
					b.Fatal(err)
				}
				rows, values = rows+r, values+v
			}
			b.StopTimer()
			if values == 0 {
				b.Fatal("no hash values read")
			}
			b.ReportMetric(float64((testenv.CPUTime()-cpu0).Nanoseconds())/float64(rows), "cpu-ns/row")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rows), "ns/row")
			b.ReportMetric(float64(st.Size())*float64(b.N)/float64(rows), "file-B/row")
			b.ReportMetric(float64(values)/float64(rows), "hashes/row")
		})
	}
}

// hashRows makes one row per hash list.
func hashRows[T any](hashes [][]uint64, row func([]uint64) T) []T {
	rows := make([]T, len(hashes))
	for i, h := range hashes {
		rows[i] = row(h)
	}
	return rows
}

// readHashPages decodes every page of the file's only column and counts the rows (levels at
// zero) and values it holds.
func readHashPages(path string) (rows, values int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return 0, 0, err
	}
	for _, rg := range pf.RowGroups() {
		pages := rg.ColumnChunks()[0].Pages()
		for {
			p, err := pages.ReadPage()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				pages.Close()
				return rows, values, err
			}
			rows += int64(bytes.Count(p.RepetitionLevels(), []byte{0}))
			data := p.Data()
			values += int64(len(data.Uint64()))
			parquet.Release(p)
		}
		pages.Close()
	}
	return rows, values, nil
}
