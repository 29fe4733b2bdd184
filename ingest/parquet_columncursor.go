// columnCursor: a scalar column chunk read a window of values at a time, page by page.

package ingest

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
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
// is null, and the others take the page's values in order. A page's values come one of three
// ways, each decoded apart: indexes into the chunk's dictionary, a plain typed array of one of
// the kinds a trace's columns have, or (any other kind) parquet-go's generic values.
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
	rows := presence{defs: defs, maxDef: c.maxDef, page: c.page}
	data := p.Data()
	if d := p.Dictionary(); d != nil {
		return c.decodeDict(d, data.Int32(), &rows)
	}
	switch kind := p.Type().Kind(); kind {
	case parquet.Int64, parquet.Int32, parquet.Double, parquet.ByteArray:
		return c.decodePlain(kind, &data, &rows)
	}
	return c.decodeValues(p, n)
}

// presence walks a page's rows against its definition levels: which rows hold a value, and
// which of the page's present values is next.
type presence struct {
	defs   []byte
	maxDef int
	page   []cell
	vi     int // next present value
}

// next reports whether row k holds a value (a null row's cell is set here), and fails when
// the page, holding have values, has none left for it.
func (r *presence) next(k, have int) (bool, error) {
	if len(r.defs) != 0 && int(r.defs[k]) < r.maxDef {
		r.page[k] = cell{kind: nullCell}
		return false, nil
	}
	if r.vi >= have {
		return false, fmt.Errorf("a page has %d values for more present rows", have)
	}
	return true, nil
}

// decodeDict fills a dictionary-encoded page from its indexes into d, whose entries are made
// cells once per chunk.
func (c *columnCursor) decodeDict(d parquet.Dictionary, idx []int32, rows *presence) error {
	if d != c.dict {
		c.dict, c.dictVals = d, c.dictVals[:0]
		for i := range d.Len() {
			c.dictVals = append(c.dictVals, c.src.cellOf(d.Index(int32(i))))
		}
	}
	for k := range c.page {
		ok, err := rows.next(k, len(idx))
		if err != nil {
			return err
		}
		if ok {
			j := idx[rows.vi]
			if j < 0 || int(j) >= len(c.dictVals) {
				return fmt.Errorf("dictionary index %d out of range", j)
			}
			c.page[k] = c.dictVals[j]
			rows.vi++
		}
	}
	return nil
}

// decodePlain fills a page of one of the kinds a trace's columns have from its typed array.
// One loop per kind, written out: sharing one through a function per value made the export in
// BenchmarkIngest1M read ~30% slower.
func (c *columnCursor) decodePlain(kind parquet.Kind, data *encoding.Values, rows *presence) error {
	switch kind {
	case parquet.Int64:
		vals := data.Int64()
		for k := range c.page {
			ok, err := rows.next(k, len(vals))
			if err != nil {
				return err
			}
			if ok {
				c.page[k] = cell{kind: kind, i: vals[rows.vi]}
				rows.vi++
			}
		}
	case parquet.Int32:
		vals := data.Int32()
		for k := range c.page {
			ok, err := rows.next(k, len(vals))
			if err != nil {
				return err
			}
			if ok {
				c.page[k] = cell{kind: kind, i: int64(vals[rows.vi])}
				rows.vi++
			}
		}
	case parquet.Double:
		vals := data.Double()
		for k := range c.page {
			ok, err := rows.next(k, len(vals))
			if err != nil {
				return err
			}
			if ok {
				c.page[k] = cell{kind: kind, x: vals[rows.vi]}
				rows.vi++
			}
		}
	case parquet.ByteArray:
		return c.decodeByteArrays(data, rows)
	}
	return nil
}

// decodeByteArrays fills a page of byte arrays (strings), each checked against the page's
// offsets and shared through the source's copies (str).
func (c *columnCursor) decodeByteArrays(data *encoding.Values, rows *presence) error {
	b, offs := data.ByteArray()
	have := max(len(offs)-1, 0)
	for k := range c.page {
		ok, err := rows.next(k, have)
		if err != nil {
			return err
		}
		if ok {
			lo, hi := offs[rows.vi], offs[rows.vi+1]
			if lo > hi || int(hi) > len(b) {
				return errors.New("bad byte array offsets")
			}
			c.page[k] = cell{kind: parquet.ByteArray, s: c.src.str(b[lo:hi])}
			rows.vi++
		}
	}
	return nil
}

// decodeValues fills a page of any other kind (booleans, floats, fixed-length arrays, ...)
// through parquet-go's generic values, which carry their own nulls.
func (c *columnCursor) decodeValues(p parquet.Page, n int) error {
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
