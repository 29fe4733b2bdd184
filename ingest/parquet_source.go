// parquetSource: any Parquet file read through the mapping, its state and the source methods
// (next, fill, where, close) that dispatch to the row-reader or the columnar path.

package ingest

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"

	"github.com/llm-replay/replay/internal/intern"
)

// parquetSource reads any Parquet file through the mapping, one leaf column per field (a
// list column for block_hashes).
type parquetSource struct {
	name   string
	f      *os.File
	pr     *parquet.GenericReader[any]
	loc    rowLocator
	conv   converter
	m      mapping
	cols   [numFields]int
	maxDef [numFields]int
	tsUnit int64 // ns per unit of a TIMESTAMP-typed time column; 0 otherwise
	buf    []parquet.Row
	n, pos int
	idx    int64 // file-wide index of the last row handed out
	num    []byte
	hashes []byte
	rawOut []byte
	last   parquet.Row // the row last handed out, for raw
	eof    bool

	// Columnar mode, when every mapped column is a scalar (no list): a row group's mapped
	// columns are decoded a column at a time into cells, as the normalized reader does,
	// instead of parquet-go reassembling every row and next searching it for each field (that
	// read a four-column export at ~1.8M rows/s).
	columnar  bool
	groups    []parquet.RowGroup
	nextGroup int
	cursors   [numFields]*columnCursor
	groupLeft int64             // rows of the current row group not decoded yet
	cells     [numFields][]cell // the window of rows being handed out
	hashCur   *listCursor
	fatal     error        // a column that could not be decoded
	hashWin   listWindow   // the window's block hash lists
	stable    intern.Table // byte-array values copied out of their pages
}

func (s *parquetSource) next(r *row) (err error) {
	if s.pos == s.n {
		if s.eof {
			return io.EOF
		}
		if err := s.fill(); err != nil {
			return err
		}
	}
	var vals parquet.Row
	if !s.columnar {
		vals = s.buf[s.pos]
		s.last = vals
	}
	s.pos++
	s.idx++
	*r = row{}
	r.rec.Source = s.name
	r.rec.Line = s.idx
	for f := 0; f < numFields; f++ {
		ci := s.cols[f]
		if ci < 0 {
			continue
		}
		var err error
		if s.columnar && f == fHashes {
			err = s.listValue(r, s.pos-1)
		} else if s.columnar {
			err = s.cellValue(r, f, s.cells[f][s.pos-1])
		} else {
			err = s.field(r, f, ci, vals)
		}
		if err != nil {
			e := s.where()
			e.Field, e.Err = s.m.describe(f), err
			return e
		}
	}
	return nil
}

func (s *parquetSource) fill() (err error) {
	if s.columnar {
		if s.fatal != nil {
			return s.fatal
		}
		err := s.fillColumns()
		if err != nil && !errors.Is(err, io.EOF) {
			// A column that cannot be decoded ends the read, even under --on-error skip: the
			// columns of later rows no longer line up. The error keeps its location but is
			// not a row's, which the reader would skip and ask again.
			s.fatal = errors.New(err.Error())
			return s.fatal
		}
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			e := s.loc.locate(s.name, s.idx)
			e.Err = fmt.Errorf("corrupt parquet data: %v", p)
			err = e
		}
	}()
	n, err := s.pr.ReadRows(s.buf)
	s.n, s.pos = n, 0
	if errors.Is(err, io.EOF) {
		s.eof = true
		err = nil
	}
	if err != nil {
		e := s.loc.locate(s.name, s.idx)
		e.Err = err
		return e
	}
	if n == 0 {
		s.eof = true
		return io.EOF
	}
	return nil
}

func (s *parquetSource) where() *RowError { return s.loc.locate(s.name, s.idx-1) }

func (s *parquetSource) close() error {
	s.closeCursors()
	var err error
	if s.pr != nil {
		err = s.pr.Close()
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}
