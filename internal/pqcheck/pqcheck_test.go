package pqcheck

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/llm-replay/replay/internal/testenv"
)

type testRow struct {
	TS     int64    `parquet:"ts,delta"`
	Model  string   `parquet:"model,dict"`
	Hashes []uint64 `parquet:"hashes,list" parquet-element:",delta"`
}

// smallFile is a Snappy file of several row groups and pages, with a dictionary, a list and
// delta-encoded columns: every kind of page header our readers meet.
func smallFile(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[testRow](&buf, parquet.Compression(&snappy.Codec{}),
		parquet.MaxRowsPerRowGroup(40), parquet.PageBufferSize(256))
	rows := make([]testRow, 100)
	for i := range rows {
		rows[i] = testRow{TS: int64(i) * 1000, Model: []string{"a", "bb"}[i%2], Hashes: []uint64{uint64(i), uint64(i + 1), uint64(i * 7)}}
	}
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readAll decodes every page of every column, as the readers would.
func readAll(f *parquet.File) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errors.New("panic")
		}
	}()
	for _, rg := range f.RowGroups() {
		for _, c := range rg.ColumnChunks() {
			pages := c.Pages()
			for {
				p, err := pages.ReadPage()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					pages.Close()
					return err
				}
				parquet.Release(p)
			}
			pages.Close()
		}
	}
	return nil
}

func TestOpenValid(t *testing.T) {
	b := smallFile(t)
	f, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if f.NumRows() != 100 || len(f.RowGroups()) != 3 {
		t.Fatalf("%d rows in %d groups, want 100 in 3", f.NumRows(), len(f.RowGroups()))
	}
	if err := readAll(f); err != nil {
		t.Fatal(err)
	}
}

// TestOpenInflatedFooter: a footer length larger than the file made parquet-go allocate it
// (4 GB for this 12-byte file, which FuzzParquet in ingest found as a minutes-long stall).
func TestOpenInflatedFooter(t *testing.T) {
	valid := smallFile(t)
	long := bytes.Clone(valid)
	binary.LittleEndian.PutUint32(long[len(long)-8:], uint32(len(long)))
	for name, b := range map[string][]byte{
		"fuzz":     []byte("PAR1\x15\x06\x15\xeaPAR1"),
		"too long": long,
		"short":    []byte("PAR1PAR1"),
		"cut":      valid[:len(valid)-1],
	} {
		var err error
		n := testenv.Allocated(func() { _, err = Open(bytes.NewReader(b), int64(len(b))) })
		if err == nil {
			t.Errorf("%s: opened", name)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: multi-line error %q", name, err)
		}
		if n > 1<<20 {
			t.Errorf("%s: allocated %d bytes to refuse it (%v)", name, n, err)
		}
		if !errors.Is(err, ErrIncomplete) {
			t.Errorf("%s: %v is not ErrIncomplete", name, err)
		}
	}
}

// TestOpenEveryByteDamaged sets each byte of a valid file to 0xff and to 0x7f in turn: Open and
// reading every page must return an error or succeed, and never allocate more than a page
// may claim (maxPageSize of bytes, maxPageValueBytes of values).
func TestOpenEveryByteDamaged(t *testing.T) {
	valid := smallFile(t)
	var worst uint64
	refused := 0
	for i := range valid {
		for _, v := range []byte{0xff, 0x7f} {
			b := bytes.Clone(valid)
			b[i] = v
			var err error
			n := testenv.Allocated(func() {
				var f *parquet.File
				if f, err = Open(bytes.NewReader(b), int64(len(b))); err == nil {
					err = readAll(f)
				}
			})
			if err != nil {
				refused++
			}
			worst = max(worst, n)
			if n > maxPageSize+maxPageValueBytes {
				t.Fatalf("byte %d set to %#x: %d bytes allocated (err %v)", i, v, n, err)
			}
		}
	}
	t.Logf("%d of %d damaged files refused; at most %d bytes allocated", refused, 2*len(valid), worst)
}

// withPageHeader rewrites the header of the first page of column col in row group 0 (its
// dictionary page when it has one) with edit, moving everything after it and rewriting the
// footer's offsets, so the file is otherwise intact.
func withPageHeader(t *testing.T, valid []byte, col int, edit func(*format.PageHeader)) []byte {
	t.Helper()
	body, md := testenv.ParquetFooter(t, valid)
	off := md.RowGroups[0].Columns[col].MetaData.DataPageOffset
	if d := md.RowGroups[0].Columns[col].MetaData.DictionaryPageOffset; d > 0 && d < off {
		off = d
	}
	pr := new(thrift.CompactProtocol).NewReaderFromBytes(body[off:])
	var h format.PageHeader
	if err := thrift.NewDecoder(pr).Decode(&h); err != nil {
		t.Fatal(err)
	}
	hl := int64(pr.BytesRead())
	edit(&h)
	nh, err := thrift.Marshal(new(thrift.CompactProtocol), &h)
	if err != nil {
		t.Fatal(err)
	}
	delta := int64(len(nh)) - hl
	out := append(append(bytes.Clone(body[:off]), nh...), body[off+hl:]...)
	move := func(p *int64) {
		if *p > off {
			*p += delta
		}
	}
	for g := range md.RowGroups {
		rg := &md.RowGroups[g]
		for c := range rg.Columns {
			cc := &rg.Columns[c]
			m := &cc.MetaData
			if g == 0 && c == col {
				m.TotalCompressedSize += delta
				rg.TotalCompressedSize += delta
			}
			move(&m.DataPageOffset)
			move(&m.DictionaryPageOffset)
			move(&cc.FileOffset)
			// The page index holds page offsets too: drop it rather than rewrite it.
			cc.ColumnIndexOffset, cc.ColumnIndexLength, cc.OffsetIndexOffset, cc.OffsetIndexLength = 0, 0, 0, 0
		}
		move(&rg.FileOffset)
	}
	return testenv.WithParquetFooter(t, out, md)
}

// TestOpenInflatedPage: a page header claiming a gigabyte, or a billion values, nulls or rows, is
// refused before parquet-go allocates for it (without the checks: 1.3 GB for the size, 8.6 GB
// for an int64 page's values, 4.3 GB for a dictionary's). The same rewrite keeping the header
// as it was must read back, so it is the claim that is refused and not the rewriting.
func TestOpenInflatedPage(t *testing.T) {
	valid := smallFile(t)
	for col := range 3 {
		same := withPageHeader(t, valid, col, func(*format.PageHeader) {})
		f, err := Open(bytes.NewReader(same), int64(len(same)))
		if err == nil {
			err = readAll(f)
		}
		if err != nil {
			t.Fatalf("column %d rewritten as it was: %v", col, err)
		}
	}
	const billion = 1 << 30
	for _, c := range []struct {
		name string
		col  int // 0: delta int64, 1: dictionary strings (its first page is the dictionary), 2: list
		edit func(*format.PageHeader)
		want string
	}{
		{"size", 0, func(h *format.PageHeader) { h.UncompressedPageSize = billion }, "uncompressed size 1073741824"},
		{"size of a dictionary", 1, func(h *format.PageHeader) { h.UncompressedPageSize = billion }, "uncompressed size 1073741824"},
		{"size of a list page", 2, func(h *format.PageHeader) { h.UncompressedPageSize = billion }, "uncompressed size 1073741824"},
		{"values", 0, func(h *format.PageHeader) { h.DataPageHeaderV2.V.NumValues = billion }, "claims 1073741824 values"},
		{"rows", 0, func(h *format.PageHeader) { h.DataPageHeaderV2.V.NumRows = billion }, "1073741824 rows in 40 values"},
		{"nulls", 0, func(h *format.PageHeader) { h.DataPageHeaderV2.V.NumNulls = billion }, "claims 1073741824 nulls"},
		{"negative values", 0, func(h *format.PageHeader) { h.DataPageHeaderV2.V.NumValues = -5 }, "negative count"},
		{"dictionary values", 1, func(h *format.PageHeader) { h.DictionaryPageHeader.V.NumValues = billion }, "claims 1073741824 values"},
		{"list values", 2, func(h *format.PageHeader) { h.DataPageHeaderV2.V.NumValues = billion }, "claims 1073741824 values"},
	} {
		b := withPageHeader(t, valid, c.col, c.edit)
		var err error
		n := testenv.Allocated(func() {
			var f *parquet.File
			if f, err = Open(bytes.NewReader(b), int64(len(b))); err == nil {
				err = readAll(f)
			}
		})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got error %v, want one saying %q", c.name, err, c.want)
		}
		if n > 1<<20 {
			t.Errorf("%s: %d bytes allocated to refuse it", c.name, n)
		}
	}
}

// TestOpenLongHeader: a page header longer than the first read (page statistics of long
// strings) is read whole and accepted.
func TestOpenLongHeader(t *testing.T) {
	type row struct {
		S string `parquet:"s"`
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf, parquet.DataPageStatistics(true))
	if _, err := w.Write([]row{{strings.Repeat("a", 3000)}, {strings.Repeat("z", 3000)}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	f, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	off := f.Metadata().RowGroups[0].Columns[0].MetaData.DataPageOffset
	pr := new(thrift.CompactProtocol).NewReaderFromBytes(b[off:])
	var h format.PageHeader
	if err := thrift.NewDecoder(pr).Decode(&h); err != nil {
		t.Fatal(err)
	}
	if pr.BytesRead() < 2<<10 {
		t.Fatalf("the header is %d bytes; the test needs one longer than the first read", pr.BytesRead())
	}
	if f, err = Open(bytes.NewReader(b), int64(len(b))); err != nil {
		t.Fatal(err)
	}
	if err := readAll(f); err != nil {
		t.Fatal(err)
	}
}

// TestOpenLargeValidPage: a real page of 20M values (more than an earlier flat cap of 16Mi
// refused) opens and reads. It is a list of int32 zeros, delta-encoded into a file of under
// 1 MB; DuckDB writes data pages of up to 100 MB of values.
func TestOpenLargeValidPage(t *testing.T) {
	type row struct {
		V []int32 `parquet:"v,list" parquet-element:",delta"`
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf, parquet.PageBufferSize(1<<30), parquet.MaxRowsPerRowGroup(1<<30))
	rows := make([]row, 10000)
	vals := make([]int32, 2000)
	for i := range rows {
		rows[i] = row{V: vals}
	}
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	f, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.RowGroups()[0].ColumnChunks()[0].Pages().ReadPage()
	if err != nil {
		t.Fatal(err)
	}
	if p.NumValues() != 20_000_000 {
		t.Fatalf("the page holds %d values; the test needs one page of 20M", p.NumValues())
	}
	if err := readAll(f); err != nil {
		t.Fatal(err)
	}
}
