package pqcheck

import (
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
)

// Open checks the footer, opens the file with parquet-go, then checks every page header
// against the chunk it sits in. parquet-go may panic on input these checks let through; the
// panic is returned as an error. Errors do not name the file: callers add it.
func Open(in io.ReaderAt, size int64, options ...parquet.FileOption) (f *parquet.File, err error) {
	if size < 12 {
		return nil, fmt.Errorf("%d bytes is too short for a Parquet file", size)
	}
	if err := Footer(in, size); err != nil {
		return nil, fmt.Errorf("not a complete Parquet file (truncated, or its writer never closed it): %w", err)
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
