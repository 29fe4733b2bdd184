// The columnar path: a row group's mapped columns decoded a window of rows at a time.

package ingest

import (
	"fmt"
	"io"
	"strconv"
)

// columnWindow is how many rows the columnar path decodes from each column at a time: its
// memory is this many values per mapped column, whatever the row groups' size.
const columnWindow = 4096

// fillColumns decodes the next window of rows from every mapped column, moving to the next
// row group when this one is done.
func (s *parquetSource) fillColumns() (err error) {
	defer func() {
		if p := recover(); p != nil {
			e := s.loc.locate(s.name, s.idx)
			e.Err = fmt.Errorf("corrupt parquet data: %v", p)
			err = e
		}
	}()
	for s.groupLeft == 0 {
		s.closeCursors()
		if s.nextGroup == len(s.groups) {
			s.eof = true
			return io.EOF
		}
		g := s.groups[s.nextGroup]
		s.nextGroup++
		s.groupLeft = g.NumRows()
		chunks := g.ColumnChunks()
		for f, ci := range s.cols {
			if ci < 0 {
				continue
			}
			if f == fHashes {
				if s.hashCur == nil {
					s.hashCur = &listCursor{maxDef: s.maxDef[f]}
				}
				s.hashCur.start(chunks[ci].Pages())
				continue
			}
			c := s.cursors[f]
			if c == nil { // kept between row groups, with its buffers
				c = &columnCursor{maxDef: s.maxDef[f], src: s}
				s.cursors[f] = c
			}
			c.start(chunks[ci].Pages())
		}
	}
	n := int(min(s.groupLeft, columnWindow))
	// windowErr reports a column f that failed, or gave got rows of the window's n.
	windowErr := func(f, got int, err error) error {
		if err == nil && got != n {
			err = fmt.Errorf("column %d ends %d rows before its row group", s.cols[f], s.groupLeft-int64(got))
		}
		if err != nil {
			e := s.loc.locate(s.name, s.idx)
			e.Field, e.Err = s.m.describe(f), err
			return e
		}
		return nil
	}
	if s.hashCur != nil { // only made when block hashes are mapped
		err := s.hashCur.read(&s.hashWin, n)
		if err := windowErr(fHashes, s.hashWin.rows(), err); err != nil {
			return err
		}
	}
	for f, c := range s.cursors {
		if c == nil {
			continue
		}
		vals, err := c.read(s.cells[f][:0], n)
		s.cells[f] = vals
		if err := windowErr(f, len(vals), err); err != nil {
			return err
		}
	}
	s.groupLeft -= int64(n)
	s.n, s.pos = n, 0
	return nil
}

// closeCursors ends the current row group's column reads.
func (s *parquetSource) closeCursors() {
	for _, c := range s.cursors {
		if c != nil {
			c.close()
		}
	}
	if s.hashCur != nil {
		s.hashCur.close()
	}
}

// listValue sets row i of the window's block hashes. An int32 list with a negative element
// is spelled out and handed to the converter, which refuses it as the row reader's path does.
func (s *parquetSource) listValue(r *row, i int) error {
	w := &s.hashWin
	vals := w.vals[w.off[i]:w.off[i+1]]
	if w.int32 {
		for _, v := range vals {
			if int32(v) < 0 {
				s.hashes = append(s.hashes[:0], '[')
				for k, v := range vals {
					if k > 0 {
						s.hashes = append(s.hashes, ',')
					}
					s.hashes = strconv.AppendInt(s.hashes, int64(int32(v)), 10)
				}
				s.hashes = append(s.hashes, ']')
				return s.conv.set(r, fHashes, kArray, s.hashes)
			}
		}
	}
	r.rec.BlockHashes = s.conv.carve(vals)
	r.hasHashes = true
	return nil
}
