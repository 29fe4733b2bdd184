package trace

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestReaderSmallPages reads back a file written with tiny pages and dictionary-encoded hashes
// by a writer other than ours, with lists far longer than a page and empty lists between, so
// rows whose hashes span pages and pages holding no row start are decoded too.
func TestReaderSmallPages(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var recs []Record
	for i := range 300 {
		r := Record{PromptTokens: i, Source: "x", Line: int64(i + 1)}
		switch i % 5 {
		case 0: // empty list
		case 1:
			r.BlockHashes = make([]uint64, 3000+rng.IntN(3000))
		default:
			r.BlockHashes = make([]uint64, 1+rng.IntN(50))
		}
		for k := range r.BlockHashes {
			r.BlockHashes[k] = rng.Uint64N(40) // few distinct values: dictionary pages
		}
		recs = append(recs, r)
	}
	for _, dict := range []bool{false, true} {
		var buf bytes.Buffer
		type dictRow struct {
			TimestampNs  int64    `parquet:"timestamp_ns"`
			PromptTokens int64    `parquet:"prompt_tokens"`
			OutputTokens int64    `parquet:"output_tokens"`
			BlockHashes  []uint64 `parquet:"block_hashes,list" parquet-element:",dict"`
			BlockSize    int64    `parquet:"block_size"`
			SessionID    string   `parquet:"session_id"`
			Turn         int64    `parquet:"turn"`
			Model        string   `parquet:"model"`
			Source       string   `parquet:"source"`
			Line         int64    `parquet:"line"`
		}
		opts := []parquet.WriterOption{parquet.PageBufferSize(512), parquet.MaxRowsPerRowGroup(70)}
		if dict {
			w := parquet.NewGenericWriter[dictRow](&buf, opts...)
			for _, r := range recs {
				if _, err := w.Write([]dictRow{{TimestampNs: int64(r.Timestamp), PromptTokens: int64(r.PromptTokens), BlockHashes: r.BlockHashes, Source: r.Source, Line: r.Line}}); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		} else {
			w := parquet.NewGenericWriter[parquetRow](&buf, opts...)
			for _, r := range recs {
				if _, err := w.Write([]parquetRow{{TimestampNs: int64(r.Timestamp), PromptTokens: int64(r.PromptTokens), BlockHashes: r.BlockHashes, Source: r.Source, Line: r.Line}}); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}
		rd, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "small.parquet")
		if err != nil {
			t.Fatal(err)
		}
		var got []Record
		for {
			r, err := rd.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, r)
		}
		if len(got) != len(recs) {
			t.Fatalf("dict=%v: %d records, want %d", dict, len(got), len(recs))
		}
		for i := range recs {
			if !reflect.DeepEqual(got[i], recs[i]) {
				t.Fatalf("dict=%v: record %d: got %d hashes %v..., want %d", dict, i, len(got[i].BlockHashes), got[i].BlockHashes[:min(5, len(got[i].BlockHashes))], len(recs[i].BlockHashes))
			}
		}
		// Records must own their hashes: appending to one must not change the next.
		if len(got) > 3 && got[2].BlockHashes != nil {
			before := append([]uint64(nil), got[3].BlockHashes...)
			_ = append(got[2].BlockHashes, 99, 99, 99)
			if !reflect.DeepEqual(before, got[3].BlockHashes) {
				t.Fatalf("dict=%v: appending to one record's hashes changed the next record's", dict)
			}
		}
	}
}
