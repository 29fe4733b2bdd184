// columnCursor: a scalar column chunk read a window of values at a time, page by page.

package ingest

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
)

// columnCursor reads one scalar column chunk a window of values at a time, across its pages.
// Each page is decoded once, from its typed values and definition levels, into cells.
type columnCursor struct {
	pages    parquet.Pages
	maxDef   int
	src      *parquetSource // for the shared copies of byte arrays (str)
	page     []cell         // the current page's values
	pos      int            // next of them
	dict     parquet.Dictionary
	dictVals []cell // dict's entries as cells
	tmp      []parquet.Value
}

// read appends n cells (fewer at the chunk's end) to dst.
func (c *columnCursor) read(dst []cell, n int) ([]cell, error) {
	if cap(dst) < n {
		dst = make([]cell, 0, n)
	}
	for len(dst) < n {
		if c.pos == len(c.page) {
			p, err := c.pages.ReadPage()
			if errors.Is(err, io.EOF) {
				return dst, nil
			}
			if err != nil {
				return dst, err
			}
			err = c.decode(p)
			parquet.Release(p)
			if err != nil {
				return dst, err
			}
			continue
		}
		k := min(n-len(dst), len(c.page)-c.pos)
		dst = append(dst, c.page[c.pos:c.pos+k]...)
		c.pos += k
	}
	return dst, nil
}

// decode turns a page into cells: a row whose definition level is below the column's maximum
// is null, and the others take the page's values in order.
func (c *columnCursor) decode(p parquet.Page) error {
	n := int(p.NumValues())
	defs := p.DefinitionLevels()
	if len(defs) != 0 && len(defs) != n {
		return fmt.Errorf("a page has %d definition levels for %d values", len(defs), n)
	}
	if cap(c.page) < n {
		c.page = make([]cell, n)
	}
	c.page, c.pos = c.page[:n], 0
	kind := p.Type().Kind()
	data := p.Data()
	vi := 0 // next present value
	// next reports whether row k holds a value, and that the page has one for it.
	next := func(k, have int) (bool, error) {
		if len(defs) != 0 && int(defs[k]) < c.maxDef {
			c.page[k] = cell{kind: nullCell}
			return false, nil
		}
		if vi >= have {
			return false, fmt.Errorf("a page has %d values for more present rows", have)
		}
		return true, nil
	}
	if d := p.Dictionary(); d != nil {
		if d != c.dict {
			c.dict, c.dictVals = d, c.dictVals[:0]
			for i := range d.Len() {
				c.dictVals = append(c.dictVals, c.src.cellOf(d.Index(int32(i))))
			}
		}
		idx := data.Int32()
		for k := range n {
			ok, err := next(k, len(idx))
			if err != nil {
				return err
			}
			if ok {
				j := idx[vi]
				if j < 0 || int(j) >= len(c.dictVals) {
					return fmt.Errorf("dictionary index %d out of range", j)
				}
				c.page[k] = c.dictVals[j]
				vi++
			}
		}
		return nil
	}
	// One loop per kind, written out: sharing one through a function per value made the
	// export in BenchmarkIngest1M read ~30% slower.
	switch kind {
	case parquet.Int64:
		vals := data.Int64()
		for k := range n {
			ok, err := next(k, len(vals))
			if err != nil {
				return err
			}
			if ok {
				c.page[k] = cell{kind: kind, i: vals[vi]}
				vi++
			}
		}
	case parquet.Int32:
		vals := data.Int32()
		for k := range n {
			ok, err := next(k, len(vals))
			if err != nil {
				return err
			}
			if ok {
				c.page[k] = cell{kind: kind, i: int64(vals[vi])}
				vi++
			}
		}
	case parquet.Double:
		vals := data.Double()
		for k := range n {
			ok, err := next(k, len(vals))
			if err != nil {
				return err
			}
			if ok {
				c.page[k] = cell{kind: kind, x: vals[vi]}
				vi++
			}
		}
	case parquet.ByteArray:
		b, offs := data.ByteArray()
		have := max(len(offs)-1, 0)
		for k := range n {
			ok, err := next(k, have)
			if err != nil {
				return err
			}
			if ok {
				lo, hi := offs[vi], offs[vi+1]
				if lo > hi || int(hi) > len(b) {
					return errors.New("bad byte array offsets")
				}
				c.page[k] = cell{kind: kind, s: c.src.str(b[lo:hi])}
				vi++
			}
		}
	default: // booleans, floats, fixed-length arrays and the rest, through parquet-go's values
		if cap(c.tmp) < n {
			c.tmp = make([]parquet.Value, n)
		}
		got, err := p.Values().ReadValues(c.tmp[:n])
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if got != n {
			return fmt.Errorf("a page has %d values for %d rows", got, n)
		}
		for k, v := range c.tmp[:n] {
			c.page[k] = c.src.cellOf(v)
		}
		clear(c.tmp[:n]) // they may point into the page
	}
	return nil
}

// start begins reading a row group's column chunk.
func (c *columnCursor) start(pages parquet.Pages) {
	c.pages, c.page, c.pos, c.dict = pages, c.page[:0], 0, nil
}

// close releases the column chunk's pages.
func (c *columnCursor) close() {
	if c.pages != nil {
		c.pages.Close()
		c.pages = nil
	}
}
