// Decoding the optional JSON text columns (options, media): each row's text into one byte slab
// per group.

package trace

import (
	"errors"
	"fmt"

	"github.com/parquet-go/parquet-go"
)

// textColumn is an optional JSON text column of one group (options, media): row i's text is
// buf[end[i-1]:end[i]], empty when null. One slab and offsets, not a string per row: the
// group's columns then hold no pointers for the garbage collector to scan.
type textColumn struct {
	buf []byte
	end []int64 // empty when the file has no such column
}

// readText decodes an optional text column chunk into t.
func readText(c parquet.ColumnChunk, maxDefLevel int, t *textColumn) error {
	t.buf, t.end = t.buf[:0], t.end[:0]
	maxDef := byte(maxDefLevel)
	return eachPage(c, func(p parquet.Page) error {
		vals, err := optionValues(p)
		if err != nil {
			return err
		}
		defs := p.DefinitionLevels()
		rows := len(defs)
		if maxDef == 0 {
			rows = len(vals)
		}
		next := 0
		for i := range rows {
			if maxDef == 0 || defs[i] == maxDef {
				if next == len(vals) {
					return errors.New("fewer values than levels say")
				}
				t.buf = append(t.buf, vals[next]...)
				next++
			}
			t.end = append(t.end, int64(len(t.buf)))
		}
		return nil
	})
}

// optionValues are a page's non-null values, plain or through its dictionary.
func optionValues(p parquet.Page) ([][]byte, error) {
	data := p.Data()
	if d := p.Dictionary(); d != nil {
		idx := data.Int32()
		out := make([][]byte, len(idx))
		for i, k := range idx {
			if k < 0 || int(k) >= d.Len() {
				return nil, fmt.Errorf("dictionary index %d out of range", k)
			}
			out[i] = d.Index(k).ByteArray()
		}
		return out, nil
	}
	buf, offsets := data.ByteArray()
	out := make([][]byte, 0, max(len(offsets)-1, 0))
	for i := 0; i+1 < len(offsets); i++ {
		if offsets[i] > offsets[i+1] || int(offsets[i+1]) > len(buf) {
			return nil, errors.New("bad string offsets")
		}
		out = append(out, buf[offsets[i]:offsets[i+1]])
	}
	return out, nil
}

// row is row i's text (ok false when the file has no such column).
func (t *textColumn) row(i int) ([]byte, bool) {
	if len(t.end) == 0 {
		return nil, false
	}
	start := int64(0)
	if i > 0 {
		start = t.end[i-1]
	}
	return t.buf[start:t.end[i]], true
}
