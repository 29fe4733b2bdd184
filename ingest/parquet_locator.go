// rowLocator: a Parquet row's file-wide index as row group and row-in-group, for errors.

package ingest

import (
	"github.com/parquet-go/parquet-go"
)

// rowLocator turns a file-wide row index into row group and row-in-group, for errors.
type rowLocator struct{ groupStarts []int64 }

func newRowLocator(f *parquet.File) rowLocator {
	var l rowLocator
	var n int64
	for _, g := range f.RowGroups() {
		l.groupStarts = append(l.groupStarts, n)
		n += g.NumRows()
	}
	return l
}

func (l rowLocator) locate(name string, idx int64) *RowError {
	g := 0
	for i, s := range l.groupStarts {
		if idx >= s {
			g = i
		}
	}
	var start int64
	if len(l.groupStarts) > 0 {
		start = l.groupStarts[g]
	}
	return &RowError{File: name, RowGroup: g, Row: idx - start}
}
