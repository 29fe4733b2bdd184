package rowfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"

	"github.com/llm-replay/replay/results"
)

// Why a reader of its own: parquet-go's GenericReader[results.Row] rebuilds each row value
// by value through the schema (Schema.Reconstruct, one parquet.Value per chunk offset), which
// was 90% of `replay report`'s time at about 8 µs a row. Here each column's pages are decoded
// by parquet-go as before (the same decoders, levels and dictionaries), and their typed
// values are copied straight into a batch of rows, column after column.

// colBatch is how many rows are filled, column by column, before fn sees them: enough to
// keep each column's loop tight, few enough to stay in cache.
const colBatch = 512

// colReader fills rows of one file from its columns.
type colReader struct {
	fields []field // by the file's column index
	rows   []results.Row
	block  []int64 // this batch's chunk offsets, shared by its rows' ChunkNS
	ends   []int   // where each row's offsets end in block
	// hasChunks is whether the file has the chunk_ns column (older files may not).
	hasChunks bool
	// shared reuses block for every batch: fn must not keep a row's ChunkNS.
	shared bool
}

// readColumns reads every row group of pf column by column, calling fn for each row, and
// counts in *row the rows fn took (so an error names where it stopped). fn's own error comes
// back as an errFn.
func readColumns(pf *parquet.File, fields []field, shared bool, row *int, fn func(results.Row) error) error {
	cr := &colReader{fields: fields, rows: make([]results.Row, colBatch), shared: shared}
	for _, f := range fields {
		cr.hasChunks = cr.hasChunks || f.path == chunkPath
	}
	for g, rg := range pf.RowGroups() {
		if err := cr.readGroup(rg, row, fn); err != nil {
			return fmt.Errorf("row group %d: %w", g, err)
		}
	}
	return nil
}

// errFn marks fn's own error, which read wraps apart from the file's.
type errFn struct{ err error }

func (e errFn) Error() string { return e.err.Error() }
func (e errFn) Unwrap() error { return e.err }

func (cr *colReader) readGroup(rg parquet.RowGroup, row *int, fn func(results.Row) error) error {
	chunks := rg.ColumnChunks()
	if len(chunks) != len(cr.fields) {
		return fmt.Errorf("%d column chunks, the schema has %d columns", len(chunks), len(cr.fields))
	}
	cols := make([]*column, len(chunks))
	for i, ch := range chunks {
		cols[i] = newColumn(cr.fields[i], ch)
	}
	defer func() {
		for _, c := range cols {
			c.close()
		}
	}()
	left := rg.NumRows()
	for left > 0 {
		batch := cr.rows[:min(int64(len(cr.rows)), left)]
		clear(batch)
		if !cr.hasChunks {
			for i := range batch {
				batch[i].ChunkNS = emptyChunks
			}
		}
		for _, c := range cols {
			var err error
			if c.f.path == chunkPath {
				err = cr.fillChunks(c, batch)
			} else {
				err = c.fill(batch)
			}
			if err != nil {
				return err
			}
		}
		for i := range batch {
			if err := fn(batch[i]); err != nil {
				return errFn{err}
			}
			*row++
		}
		left -= int64(len(batch))
	}
	for _, c := range cols {
		if c.lvl < c.levels {
			return fmt.Errorf("column %s: values beyond the row group's %d rows", c.f.path, rg.NumRows())
		}
	}
	return nil
}

// errShort is a column chunk that ends before its row group's rows do.
func errShort(c *column) error {
	return fmt.Errorf("column %s: ends before the row group's rows do", c.f.path)
}

// fill sets the column's field in each of rows, a run of levels at a time.
func (c *column) fill(rows []results.Row) error {
	for k := 0; k < len(rows); {
		if c.page == nil || c.lvl == c.levels {
			if err := c.next(); err != nil {
				if errors.Is(err, io.EOF) {
					return errShort(c)
				}
				return err
			}
			continue
		}
		m := min(len(rows)-k, c.levels-c.lvl)
		if err := c.put(rows[k : k+m]); err != nil {
			return err
		}
		k += m
	}
	return nil
}

// put sets the field of each of rows from the current page's next levels; a null (a level
// below the column's definition level) leaves the field zero, as the generic reader does.
func (c *column) put(rows []results.Row) error {
	for j := range rows {
		if c.defs != nil && c.defs[c.lvl] != c.f.maxDef {
			c.lvl++
			continue
		}
		r := &rows[j]
		switch {
		case c.i64 != nil:
			*c.f.i64(r) = c.i64[c.val]
		case c.i32 != nil:
			*c.f.i32(r) = c.i32[c.val]
		case c.bools != nil:
			*c.f.b(r) = c.bools[c.val]
		case c.idx != nil:
			*c.f.s(r) = c.dictStrs[c.idx[c.val]]
		case c.offs != nil:
			a, b := c.offs[c.val], c.offs[c.val+1]
			if a > b || int(b) > len(c.bytes) {
				return fmt.Errorf("column %s: value %d spans bytes %d..%d of a %d-byte page", c.f.path, c.val, a, b, len(c.bytes))
			}
			*c.f.s(r) = string(c.bytes[a:b])
		default:
			return fmt.Errorf("column %s: page without values of kind %s", c.f.path, c.f.kind)
		}
		c.lvl++
		c.val++
	}
	return nil
}

// emptyChunks is the ChunkNS of a row without chunks: empty, not nil, as the generic reader
// gives it (also for files without the column). Its capacity is 0, so sharing it is safe.
var emptyChunks = []int64{}

// fillChunks sets each row's ChunkNS from the list column: a row starts at repetition level
// 0 and runs over every following level above 0, across pages when a writer split it. The
// batch's offsets share one array, each row's slice capped at its own end.
func (cr *colReader) fillChunks(c *column, rows []results.Row) error {
	block := cr.block[:0]
	ends := grow(cr.ends, len(rows))
	cr.ends = ends
	for j := range rows {
		var err error
		if block, err = c.appendList(block); err != nil {
			return err
		}
		ends[j] = len(block)
	}
	start := 0
	for j := range rows {
		rows[j].ChunkNS = emptyChunks
		if ends[j] > start {
			rows[j].ChunkNS = block[start:ends[j]:ends[j]]
		}
		start = ends[j]
	}
	if cr.shared {
		cr.block = block // the next batch writes over this one's offsets
	} else {
		cr.block = make([]int64, 0, cap(block)) // the rows own this batch's array now
	}
	return nil
}

// nextPage is next at a row's start, where the chunk must not end.
func (c *column) nextPage() error {
	for c.page == nil || c.lvl == c.levels {
		if err := c.next(); err != nil {
			if errors.Is(err, io.EOF) {
				return errShort(c)
			}
			return err
		}
	}
	return nil
}

// skipEmpty moves past the current page when its levels are used up (and past empty pages);
// end is the chunk's end.
func (c *column) skipEmpty() (end bool, err error) {
	for c.lvl == c.levels {
		if err := c.next(); err != nil {
			if errors.Is(err, io.EOF) {
				return true, nil
			}
			return false, err
		}
	}
	return false, nil
}

// appendList appends to dst the values of the list that starts at the column's current level
// (a row's: repetition level 0), run by run of its levels on each page it spans.
func (c *column) appendList(dst []int64) ([]int64, error) {
	if err := c.nextPage(); err != nil {
		return dst, err
	}
	if c.reps[c.lvl] != 0 {
		return dst, fmt.Errorf("column %s: row starts at repetition level %d, not 0", c.f.path, c.reps[c.lvl])
	}
	if c.defs[c.lvl] != c.f.maxDef { // an empty list: one level, no value
		c.lvl++
		if c.lvl < c.levels && c.reps[c.lvl] != 0 {
			return dst, fmt.Errorf("column %s: an empty list with elements", c.f.path)
		}
		_, err := c.skipEmpty()
		return dst, err
	}
	for {
		at := c.lvl
		end := c.levels
		if k := bytes.IndexByte(c.reps[at+1:], 0); k >= 0 {
			end = at + 1 + k
		}
		for _, d := range c.defs[at:end] {
			if d != c.f.maxDef {
				return dst, fmt.Errorf("column %s: a null inside a list", c.f.path)
			}
		}
		n := end - at
		if c.val+n > len(c.i64) {
			return dst, fmt.Errorf("column %s: %d values in a page of %d", c.f.path, c.val+n, len(c.i64))
		}
		dst = append(dst, c.i64[c.val:c.val+n]...)
		c.val, c.lvl = c.val+n, end
		if end < c.levels {
			return dst, nil // the next row starts here
		}
		// The page ends: the list goes on if the next page continues it (repetition above 0).
		last, err := c.skipEmpty()
		if err != nil || last || c.reps[c.lvl] == 0 {
			return dst, err
		}
	}
}
