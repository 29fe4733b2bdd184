// Decoding a row group's scalar column chunks page by page: int64 columns, and string columns
// as indexes into the group's distinct strings.

package trace

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
)

// eachPage calls fn for every page of a column chunk.
func eachPage(c parquet.ColumnChunk, fn func(parquet.Page) error) error {
	pages := c.Pages()
	defer pages.Close()
	for {
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		err = fn(p)
		parquet.Release(p)
		if err != nil {
			return err
		}
	}
}

func readInt64s(c parquet.ColumnChunk, dst []int64) ([]int64, error) {
	err := eachPage(c, func(p parquet.Page) error {
		if d := p.Dictionary(); d != nil {
			data := p.Data()
			for _, idx := range data.Int32() {
				if idx < 0 || int(idx) >= d.Len() {
					return fmt.Errorf("dictionary index %d out of range", idx)
				}
				dst = append(dst, d.Index(idx).Int64())
			}
			return nil
		}
		data := p.Data()
		dst = append(dst, data.Int64()...)
		return nil
	})
	return dst, err
}

// readStrings decodes a string column into indexes into g.strs, the group's distinct
// strings. The values repeat (file names, models, sessions), and columns of indexes hold no
// pointers: a []string per column made every garbage collection scan megabytes of them.
func (r *Reader) readStrings(c parquet.ColumnChunk, dst []int32) ([]int32, error) {
	var dictIdx []int32
	var lastDict parquet.Dictionary
	err := eachPage(c, func(p parquet.Page) error {
		if d := p.Dictionary(); d != nil {
			if d != lastDict {
				lastDict = d
				dictIdx = dictIdx[:0]
				for i := 0; i < d.Len(); i++ {
					dictIdx = append(dictIdx, r.strIndex(d.Index(int32(i)).ByteArray()))
				}
			}
			data := p.Data()
			for _, idx := range data.Int32() {
				if idx < 0 || int(idx) >= len(dictIdx) {
					return fmt.Errorf("dictionary index %d out of range", idx)
				}
				dst = append(dst, dictIdx[idx])
			}
			return nil
		}
		values := p.Data()
		data, offsets := values.ByteArray()
		for i := 0; i+1 < len(offsets); i++ {
			if offsets[i] > offsets[i+1] || int(offsets[i+1]) > len(data) {
				return errors.New("bad string offsets")
			}
			dst = append(dst, r.strIndex(data[offsets[i]:offsets[i+1]]))
		}
		return nil
	})
	return dst, err
}

// strIndex is b's index in the group's distinct strings, adding it when new.
func (r *Reader) strIndex(b []byte) int32 {
	if i, ok := r.strIdx[string(b)]; ok {
		return i
	}
	s := r.str(b)
	i := int32(len(r.g.strs))
	r.g.strs = append(r.g.strs, s)
	r.strIdx[s] = i
	return i
}

// str returns b as a string, sharing one copy of values seen before in the file.
func (r *Reader) str(b []byte) string { return r.intern.String(b) }
