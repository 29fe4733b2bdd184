package pqcheck

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go/format"
)

// maxPageSize bounds a page's claimed uncompressed size. Our writer's pages are a few hundred
// KiB; a damaged header claiming more would make parquet-go allocate it.
const maxPageSize = 256 << 20

// maxPageValueBytes bounds the memory parquet-go may set aside for one data page's values:
// it allocates its value buffers at the count a page claims, and run-length and delta
// encodings let a page of a few bytes claim billions (2^30 values claimed by one int64 page
// made it allocate 8.6 GB). Writers stay below: Arrow and parquet-mr cut pages at 1 MiB,
// DuckDB at 100 MB of values.
const maxPageValueBytes = 512 << 20

// column is what the checks need to know of a column chunk's values.
type column struct {
	// memBytes is what parquet-go keeps in memory per value: the physical width, or for a
	// byte array its offset entry (the bytes themselves must be in the page).
	memBytes int64
	// plainBits is the least a PLAIN-encoded value takes, which is how dictionary pages hold
	// their values, so a dictionary page's bytes bound its count exactly.
	plainBits int64
}

// columnOf describes physical type t (typeLength: a fixed-length byte array's length).
func columnOf(t format.Type, typeLength int32) column {
	switch t {
	case format.Boolean:
		return column{memBytes: 1, plainBits: 1}
	case format.Int32, format.Float:
		return column{memBytes: 4, plainBits: 32}
	case format.Int64, format.Double:
		return column{memBytes: 8, plainBits: 64}
	case format.Int96:
		return column{memBytes: 12, plainBits: 96}
	case format.FixedLenByteArray:
		n := max(int64(typeLength), 1)
		return column{memBytes: n, plainBits: 8 * n}
	default: // byte arrays: a 4-byte length before each value
		return column{memBytes: 4, plainBits: 32}
	}
}

// leafLengths is each leaf column's type_length, in column order (schema leaves depth first).
func leafLengths(md *format.FileMetaData) []int32 {
	var out []int32
	for i, e := range md.Schema {
		if i > 0 && e.NumChildren.V == 0 { // a leaf: no children (absent or zero)
			out = append(out, e.TypeLength.V)
		}
	}
	return out
}

// Pages walks every page header of every column chunk before parquet-go reads them: a
// header's sizes must fit its chunk, and a Snappy page's own length prefix must not exceed
// the page's uncompressed size. parquet-go allocates at these claimed sizes, so without this a
// flipped byte in a page header can exhaust memory instead of returning an error.
func Pages(in io.ReaderAt, size int64, md *format.FileMetaData) error {
	lengths := leafLengths(md)
	for g := range md.RowGroups {
		for c := range md.RowGroups[g].Columns {
			m := &md.RowGroups[g].Columns[c].MetaData
			start := m.DataPageOffset
			if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < start {
				start = m.DictionaryPageOffset
			}
			end := start + m.TotalCompressedSize
			if start < 4 || m.TotalCompressedSize < 0 || end > size-8 || end < start {
				return fmt.Errorf("row group %d column %d: chunk [%d, %d) outside the file", g, c, start, end)
			}
			var typeLength int32
			if c < len(lengths) {
				typeLength = lengths[c]
			}
			if err := checkChunk(in, start, end, m.Codec == format.Snappy, columnOf(m.Type, typeLength)); err != nil {
				return fmt.Errorf("row group %d column %d: %w", g, c, err)
			}
		}
	}
	return nil
}

func checkChunk(in io.ReaderAt, pos, end int64, snappy bool, col column) error {
	var buf []byte
	for pos < end {
		// Headers are small (statistics make most a few hundred bytes): read 1 KiB, and more only
		// if the header does not fit, so small pages are not read again with those after them.
		var (
			h   pageHeader
			hl  int
			err error
		)
		for _, want := range []int64{1 << 10, 64 << 10, 16 << 20} {
			n := min(end-pos, want)
			if int64(cap(buf)) < n {
				buf = make([]byte, n)
			}
			buf = buf[:n]
			if _, rerr := in.ReadAt(buf, pos); rerr != nil && !errors.Is(rerr, io.EOF) {
				return fmt.Errorf("page at byte %d: %w", pos, rerr)
			}
			t := thriftCheck{b: buf}
			h, err = t.pageHeader()
			hl = t.i
			if err == nil || n == end-pos {
				break
			}
		}
		if err != nil {
			return fmt.Errorf("page header at byte %d: %w", pos, err)
		}
		body := pos + int64(hl)
		if h.compressed < 0 || body+int64(h.compressed) > end {
			return fmt.Errorf("page at byte %d: %d bytes overrun its column chunk", pos, h.compressed)
		}
		if h.uncompressed < 0 || h.uncompressed > maxPageSize {
			return fmt.Errorf("page at byte %d: uncompressed size %d", pos, h.uncompressed)
		}
		if err := h.checkCounts(col); err != nil {
			return fmt.Errorf("page at byte %d: %w", pos, err)
		}
		if snappy && h.compressed > 0 {
			if err := checkSnappy(in, body, int64(h.compressed), h); err != nil {
				return fmt.Errorf("page at byte %d: %w", pos, err)
			}
		}
		pos = body + int64(h.compressed)
	}
	return nil
}

// checkSnappy reads the decoded-length prefix of a Snappy page (after the levels, which data
// page v2 leaves uncompressed) and bounds it.
func checkSnappy(in io.ReaderAt, body, n int64, h pageHeader) error {
	skip := int64(h.defLen) + int64(h.repLen)
	if skip < 0 || skip > n {
		return fmt.Errorf("levels of %d bytes in a %d-byte page", skip, n)
	}
	if skip == n {
		return nil
	}
	var p [binary.MaxVarintLen64]byte
	k, err := in.ReadAt(p[:min(int64(len(p)), n-skip)], body+skip)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	v, m := binary.Uvarint(p[:k])
	if m <= 0 || v > maxPageSize {
		return fmt.Errorf("snappy block claims %d bytes", v)
	}
	return nil
}

// pageHeader holds the fields of a Thrift PageHeader that size allocations.
type pageHeader struct {
	uncompressed, compressed int32
	defLen, repLen           int32 // data page v2 only
	// values is what a data page (v1 or v2) or a dictionary page claims to hold; nulls and
	// rows are data page v2's other counts. -1 when absent.
	values, nulls, rows int32
	dict                bool // a dictionary page
}

// checkCounts bounds the counts a page claims and checks that they agree with each other.
func (h *pageHeader) checkCounts(col column) error {
	if h.values < -1 || h.nulls < -1 || h.rows < -1 {
		return fmt.Errorf("negative count (%d values, %d nulls, %d rows)", h.values, h.nulls, h.rows)
	}
	if h.nulls > h.values || h.rows > h.values && h.values >= 0 {
		return fmt.Errorf("claims %d nulls and %d rows in %d values", h.nulls, h.rows, h.values)
	}
	n := int64(max(h.values, 0))
	if h.dict {
		if n*col.plainBits > 8*int64(h.uncompressed) {
			return fmt.Errorf("dictionary page claims %d values in %d bytes", n, h.uncompressed)
		}
		return nil
	}
	if n*col.memBytes > maxPageValueBytes {
		return fmt.Errorf("claims %d values of %d bytes (at most %d MiB of values in one page)", n, col.memBytes, maxPageValueBytes>>20)
	}
	return nil
}

// pageHeader walks a PageHeader struct, checking every nested length and keeping the sizes.
func (t *thriftCheck) pageHeader() (h pageHeader, err error) {
	h.uncompressed, h.compressed = -1, -1
	h.values, h.nulls, h.rows = -1, -1, -1
	// numValues takes field 1 of DataPageHeader and DictionaryPageHeader: num_values.
	numValues := func(id int16, typ byte) (bool, error) {
		if id == 1 && typ == 5 {
			v, err := t.zigzag()
			h.values = v
			return true, err
		}
		return false, nil
	}
	err = t.fields(0, func(id int16, typ byte) (bool, error) {
		switch {
		case (id == 2 || id == 3) && typ == 5:
			v, err := t.zigzag()
			if id == 2 {
				h.uncompressed = v
			} else {
				h.compressed = v
			}
			return true, err
		case (id == 5 || id == 7) && typ == 12: // DataPageHeader, DictionaryPageHeader
			h.dict = id == 7
			return true, t.fields(1, numValues)
		case id == 8 && typ == 12: // DataPageHeaderV2
			return true, t.fields(1, func(id int16, typ byte) (bool, error) {
				if typ != 5 {
					return false, nil
				}
				var dst *int32
				switch id {
				case 1:
					dst = &h.values
				case 2:
					dst = &h.nulls
				case 3:
					dst = &h.rows
				case 5:
					dst = &h.defLen
				case 6:
					dst = &h.repLen
				default:
					return false, nil
				}
				v, err := t.zigzag()
				*dst = v
				return true, err
			})
		}
		return false, nil
	})
	if err == nil && (h.uncompressed < 0 || h.compressed < 0) {
		err = errors.New("missing page sizes")
	}
	return h, err
}

// fields walks a struct's fields, offering each to fn first; fields fn does not take are
// skipped with every length checked.
func (t *thriftCheck) fields(depth int, fn func(id int16, typ byte) (bool, error)) error {
	if depth > maxThriftDepth {
		return errors.New("nested too deep")
	}
	var id int16
	for {
		h, err := t.byte1()
		if err != nil {
			return err
		}
		typ := h & 0x0f
		if typ == 0 {
			return nil
		}
		if d := h >> 4; d != 0 {
			id += int16(d)
		} else {
			v, err := t.varint()
			if err != nil {
				return err
			}
			id = int16(int64(v>>1) ^ -int64(v&1))
		}
		took, err := fn(id, typ)
		if err != nil {
			return err
		}
		if !took {
			if err := t.value(typ, depth); err != nil {
				return err
			}
		}
	}
}

// zigzag reads a compact-protocol i32.
func (t *thriftCheck) zigzag() (int32, error) {
	v, err := t.varint()
	if err != nil {
		return 0, err
	}
	if v > 0xffffffff {
		return 0, errors.New("i32 out of range")
	}
	return int32(int64(v>>1) ^ -int64(v&1)), nil
}
