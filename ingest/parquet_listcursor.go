// listCursor: a list column chunk of integers (block hashes) read a window of rows at a time.

package ingest

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
)

// listWindow holds a window's lists: row i's values are vals[off[i]:off[i+1]] (an int32
// column's values as their bits, int32 set).
type listWindow struct {
	vals  []uint64
	off   []int
	int32 bool
}

func (w *listWindow) rows() int { return max(len(w.off)-1, 0) }

// listCursor reads a list column chunk of integers a window of rows at a time. A row starts at
// repetition level 0, an element is present at the maximum definition level (below it the
// list is empty or null), and a row may go on into the next page.
type listCursor struct {
	pages  parquet.Pages
	maxDef int
	vals   []uint64 // values of the rows not handed out yet
	starts []int    // where each of those rows starts in vals
	done   bool     // the chunk has no more pages: the last row is complete
	int32  bool
	tmp    []uint64
}

// start begins reading a row group's column chunk.
func (c *listCursor) start(pages parquet.Pages) {
	c.pages, c.vals, c.starts, c.done = pages, c.vals[:0], c.starts[:0], false
}

// close releases the column chunk's pages.
func (c *listCursor) close() {
	if c.pages != nil {
		c.pages.Close()
		c.pages = nil
	}
}

// read puts the next n rows (fewer at the chunk's end) into w.
func (c *listCursor) read(w *listWindow, n int) error {
	// A row is complete once the next one has started, or the chunk has ended.
	for !c.done && len(c.starts) <= n {
		p, err := c.pages.ReadPage()
		if errors.Is(err, io.EOF) {
			c.done = true
			break
		}
		if err != nil {
			return err
		}
		err = c.decode(p)
		parquet.Release(p)
		if err != nil {
			return err
		}
	}
	// Unless the chunk is done, the loop stopped with n+1 rows started: the first n are whole.
	k := min(n, len(c.starts))
	w.int32 = c.int32
	w.off = w.off[:0]
	if k <= 0 {
		w.vals = w.vals[:0]
		return nil
	}
	end := len(c.vals)
	if k < len(c.starts) {
		end = c.starts[k]
	}
	w.vals = append(w.vals[:0], c.vals[:end]...)
	w.off = append(w.off, c.starts[:k]...)
	w.off = append(w.off, end)
	// Keep the rows not handed out, from the front.
	c.vals = c.vals[:copy(c.vals, c.vals[end:])]
	rest := c.starts[k:]
	for i := range rest {
		rest[i] -= end
	}
	c.starts = c.starts[:copy(c.starts, rest)]
	return nil
}

// decode appends a page's rows and values.
func (c *listCursor) decode(p parquet.Page) error {
	reps, defs := p.RepetitionLevels(), p.DefinitionLevels()
	if len(reps) != len(defs) {
		return errors.New("repetition and definition levels differ in length")
	}
	data := p.Data()
	var vals []uint64
	if d := p.Dictionary(); d != nil {
		c.tmp = c.tmp[:0]
		for _, idx := range data.Int32() {
			if idx < 0 || int(idx) >= d.Len() {
				return fmt.Errorf("dictionary index %d out of range", idx)
			}
			v := d.Index(idx)
			if v.Kind() == parquet.Int32 {
				c.tmp = append(c.tmp, uint64(uint32(v.Int32())))
			} else {
				c.tmp = append(c.tmp, uint64(v.Int64()))
			}
		}
		vals = c.tmp
	} else if p.Type().Kind() == parquet.Int32 {
		c.tmp = c.tmp[:0]
		for _, v := range data.Int32() {
			c.tmp = append(c.tmp, uint64(uint32(v)))
		}
		vals = c.tmp
	} else {
		vals = data.Uint64()
	}
	c.int32 = p.Type().Kind() == parquet.Int32
	if len(reps) > 0 && reps[0] != 0 && len(c.starts) == 0 {
		return errors.New("a list goes on from a row that never started")
	}
	vi := 0
	maxDef := byte(c.maxDef)
	for k, rl := range reps {
		if rl == 0 {
			c.starts = append(c.starts, len(c.vals))
		}
		if defs[k] == maxDef {
			if vi >= len(vals) {
				return errors.New("fewer values than levels")
			}
			c.vals = append(c.vals, vals[vi])
			vi++
		}
	}
	if vi != len(vals) {
		return errors.New("more values than levels")
	}
	return nil
}
