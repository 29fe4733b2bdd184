// Decoding the optional options column: each row's JSON text into one byte slab per group.

package trace

import (
	"errors"
	"fmt"

	"github.com/parquet-go/parquet-go"
)

// readOptions decodes the options column chunk into g.optBuf and g.optEnd: row i's text is
// optBuf[optEnd[i-1]:optEnd[i]], empty when null. One slab and offsets, not a string per row:
// the group's columns then hold no pointers for the garbage collector to scan.
func (r *Reader) readOptions(c parquet.ColumnChunk) error {
	g := &r.g
	g.optBuf, g.optEnd = g.optBuf[:0], g.optEnd[:0]
	maxDef := byte(r.cols.optionsMaxDef)
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
					return errors.New("options: fewer values than levels say")
				}
				g.optBuf = append(g.optBuf, vals[next]...)
				next++
			}
			g.optEnd = append(g.optEnd, int64(len(g.optBuf)))
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
				return nil, fmt.Errorf("options: dictionary index %d out of range", k)
			}
			out[i] = d.Index(k).ByteArray()
		}
		return out, nil
	}
	buf, offsets := data.ByteArray()
	out := make([][]byte, 0, max(len(offsets)-1, 0))
	for i := 0; i+1 < len(offsets); i++ {
		if offsets[i] > offsets[i+1] || int(offsets[i+1]) > len(buf) {
			return nil, errors.New("options: bad string offsets")
		}
		out = append(out, buf[offsets[i]:offsets[i+1]])
	}
	return out, nil
}

// options decodes row i's options (nil when null).
func (g *groupColumns) options(i int) ([]byte, bool) {
	if len(g.optEnd) == 0 {
		return nil, false
	}
	start := int64(0)
	if i > 0 {
		start = g.optEnd[i-1]
	}
	return g.optBuf[start:g.optEnd[i]], true
}
