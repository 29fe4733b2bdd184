package rowfile

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
)

// column walks one column chunk page by page for the column reader: the current page's
// levels and its values as a typed slice, with a cursor over each. A page's values are
// copied out (numbers into the rows, bytes into new strings) before the next page is read,
// since parquet-go reuses a released page's buffers.
type column struct {
	f     field
	pages parquet.Pages
	page  parquet.Page

	reps, defs []byte // nil when the column has no such levels
	levels     int    // levels (required: values) in the page
	lvl, val   int    // next level, next value

	i64   []int64
	i32   []int32
	bools []bool
	bytes []byte   // byte arrays: value k is bytes[offs[k]:offs[k+1]]
	offs  []uint32 //
	idx   []int32  // dictionary-encoded byte arrays: value k is dictStrs[idx[k]]

	dict     parquet.Dictionary // the dictionary dictStrs holds, one per chunk
	dictStrs []string
	boolBuf  []bool
	vals     []parquet.Value // pages read value by value (dictionary-encoded numbers)
}

func newColumn(f field, chunk parquet.ColumnChunk) *column {
	return &column{f: f, pages: chunk.Pages()}
}

// close releases the column's page and its reader.
func (c *column) close() {
	if c.page != nil {
		parquet.Release(c.page)
		c.page = nil
	}
	c.pages.Close()
}

// next makes the chunk's next page current; io.EOF at the end of the chunk.
func (c *column) next() error {
	if c.page != nil {
		parquet.Release(c.page)
		c.page = nil
	}
	p, err := c.pages.ReadPage()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return io.EOF
		}
		return fmt.Errorf("column %s: %w", c.f.path, err)
	}
	c.page = p
	c.lvl, c.val = 0, 0
	c.levels = int(p.NumValues())
	c.reps, c.defs = nil, nil
	if c.f.maxRep > 0 {
		c.reps = p.RepetitionLevels()
	}
	if c.f.maxDef > 0 {
		c.defs = p.DefinitionLevels()
	}
	if (c.f.maxRep > 0 && len(c.reps) != c.levels) || (c.f.maxDef > 0 && len(c.defs) != c.levels) {
		return fmt.Errorf("column %s: page of %d values has %d repetition and %d definition levels", c.f.path, c.levels, len(c.reps), len(c.defs))
	}
	n := c.levels
	if c.defs != nil {
		n = 0
		for _, d := range c.defs {
			if d == c.f.maxDef {
				n++
			} else if d > c.f.maxDef {
				return fmt.Errorf("column %s: definition level %d above the column's %d", c.f.path, d, c.f.maxDef)
			}
		}
	}
	if err := c.load(p, n); err != nil {
		return fmt.Errorf("column %s: %w", c.f.path, err)
	}
	return nil
}

// load takes the page's n non-null values as the typed slice of the column's kind.
func (c *column) load(p parquet.Page, n int) error {
	c.i64, c.i32, c.bools, c.bytes, c.offs, c.idx = nil, nil, nil, nil, nil, nil
	if d := p.Dictionary(); d != nil {
		if c.f.kind == parquet.ByteArray {
			return c.loadIndexed(p, d, n)
		}
		return c.loadValues(p, n)
	}
	got, data := 0, p.Data()
	switch c.f.kind {
	case parquet.Int64:
		c.i64 = data.Int64()
		got = len(c.i64)
	case parquet.Int32:
		c.i32 = data.Int32()
		got = len(c.i32)
	case parquet.Boolean:
		br, ok := p.Values().(parquet.BooleanReader)
		if !ok {
			return c.loadValues(p, n)
		}
		c.boolBuf = grow(c.boolBuf, n)
		k, err := br.ReadBooleans(c.boolBuf)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		c.bools, got = c.boolBuf[:k], k
	case parquet.ByteArray:
		c.bytes, c.offs = data.ByteArray()
		if got = len(c.offs) - 1; len(c.offs) == 0 {
			got = 0
		}
	}
	if got != n {
		return fmt.Errorf("page holds %d values, its levels say %d", got, n)
	}
	return nil
}

// loadIndexed takes a dictionary-encoded page of byte arrays: its indexes, checked against
// the dictionary, whose strings are made once per chunk (so each row shares them).
func (c *column) loadIndexed(p parquet.Page, d parquet.Dictionary, n int) error {
	if d != c.dict {
		c.dict = d
		c.dictStrs = make([]string, d.Len())
		for i := range c.dictStrs {
			c.dictStrs[i] = string(d.Index(int32(i)).ByteArray())
		}
	}
	data := p.Data()
	c.idx = data.Int32()
	if len(c.idx) != n {
		return fmt.Errorf("page holds %d values, its levels say %d", len(c.idx), n)
	}
	for _, i := range c.idx {
		if i < 0 || int(i) >= len(c.dictStrs) {
			return fmt.Errorf("dictionary index %d out of a dictionary of %d", i, len(c.dictStrs))
		}
	}
	return nil
}

// loadValues reads a page the typed slices do not cover (numbers or flags through a
// dictionary, which no writer of this project makes) value by value.
func (c *column) loadValues(p parquet.Page, n int) error {
	c.vals = c.vals[:0]
	r := p.Values()
	buf := make([]parquet.Value, 256)
	for {
		k, err := r.ReadValues(buf)
		for _, v := range buf[:k] {
			if !v.IsNull() {
				c.vals = append(c.vals, v)
			}
		}
		if errors.Is(err, io.EOF) || (err == nil && k == 0) {
			break
		}
		if err != nil {
			return err
		}
	}
	if len(c.vals) != n {
		return fmt.Errorf("page holds %d values, its levels say %d", len(c.vals), n)
	}
	switch c.f.kind {
	case parquet.Int64:
		c.i64 = make([]int64, n)
		for i, v := range c.vals {
			c.i64[i] = v.Int64()
		}
	case parquet.Int32:
		c.i32 = make([]int32, n)
		for i, v := range c.vals {
			c.i32[i] = v.Int32()
		}
	case parquet.Boolean:
		c.bools = make([]bool, n)
		for i, v := range c.vals {
			c.bools[i] = v.Boolean()
		}
	}
	return nil
}

func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}
