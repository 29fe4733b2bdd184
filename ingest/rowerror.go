package ingest

import (
	"errors"
	"fmt"
)

// RowError is one bad row (or a bad file, when Line and Row are 0): where it is and which field.
// Its message is one line: `FILE:LINE: field "input_length": negative value -3`, or for Parquet
// `FILE: row group 2, row 17: field ...`.
type RowError struct {
	File string
	// Line is the 1-based line of a text file; 0 for Parquet or file-level errors.
	Line int64
	// RowGroup and Row locate a Parquet row (both 0-based within the file's row groups and the
	// group; Row is -1 when not a Parquet row).
	RowGroup int
	Row      int64
	// Field is the input's name for the field (the mapped column), "" when the row itself is bad.
	Field string
	Err   error
}

func (e *RowError) Error() string {
	loc := e.File
	switch {
	case e.Line > 0:
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	case e.Row >= 0:
		loc = fmt.Sprintf("%s: row group %d, row %d", e.File, e.RowGroup, e.Row)
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: field %q: %v", loc, e.Field, e.Err)
	}
	return fmt.Sprintf("%s: %v", loc, e.Err)
}

func (e *RowError) Unwrap() error { return e.Err }

// ErrEmpty is returned (wrapped, with the file name) for a trace with no rows at all.
var ErrEmpty = errors.New("empty trace: no records")

// errMissing is a required field absent from a row (or null there).
var errMissing = errors.New("missing")
