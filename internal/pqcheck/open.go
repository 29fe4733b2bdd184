package pqcheck

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
)

// ErrIncomplete is wrapped by Open's errors for a file without a whole footer, which is what a
// file cut short or never closed by its writer looks like.
var ErrIncomplete = errors.New("not a complete Parquet file (truncated, or its writer never closed it)")

// Open checks the footer, opens the file with parquet-go, then checks every page header
// against the chunk it sits in. parquet-go may panic on input these checks let through; the
// panic is returned as an error. Errors do not name the file: callers add it.
func Open(in io.ReaderAt, size int64, options ...parquet.FileOption) (f *parquet.File, err error) {
	if size < 12 {
		return nil, fmt.Errorf("%w: %d bytes is too short for one", ErrIncomplete, size)
	}
	if err := Footer(in, size); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrIncomplete, err)
	}
	defer func() {
		if p := recover(); p != nil {
			f, err = nil, fmt.Errorf("corrupt Parquet file: %v", p)
		}
	}()
	f, err = parquet.OpenFile(in, size, options...)
	if err != nil {
		return nil, fmt.Errorf("not a readable Parquet file: %w", err)
	}
	if err := Pages(in, size, f.Metadata()); err != nil {
		return nil, fmt.Errorf("damaged Parquet file: %w", err)
	}
	return f, nil
}
