package rowfile

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"

	"github.com/llm-replay/replay/internal/pqcheck"
	"github.com/llm-replay/replay/results"
)

// readBatch is how many rows are decoded per call into parquet-go.
const readBatch = 256

// Read calls fn for every row of the results file at path, in file order, without holding
// the file's rows in memory. Errors name the file and the row index (from 0); fn's error
// stops the read and is returned wrapped. A file cut short or without a footer (a run killed
// before its writer closed) is an error, never a panic: Recover makes it whole first.
func Read(path string, fn func(results.Row) error) error {
	return readPath(path, byColumns, fn)
}

func readPath(path string, mode readMode, fn func(results.Row) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return readWith(path, f, st.Size(), mode, fn)
}

// ReadAll returns every row of the results file at path.
func ReadAll(path string) ([]results.Row, error) {
	var rows []results.Row
	err := Read(path, func(r results.Row) error {
		rows = append(rows, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// readMode is how readWith reads a file whose columns are all results.Row's own.
type readMode int

const (
	byColumns readMode = iota // the column reader, each row's slices its own
	// byColumnsShared is the column reader with one ChunkNS array reused for every batch of
	// rows: a row's ChunkNS holds only until fn returns (Scan's contract).
	byColumnsShared
	byGeneric // parquet-go's generic reader (what the tests and the benchmark compare with)
)

// readWith is read in mode; a file with a column that is not results.Row's own is always
// read by parquet-go's generic reader, which converts.
func readWith(path string, in io.ReaderAt, size int64, mode readMode, fn func(results.Row) error) (err error) {
	row := 0
	// parquet-go panics on some malformed inputs (and its generic reader panics on schema
	// errors): turn those into errors that name the file and row.
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("results: %s: row %d: corrupt or incompatible Parquet file: %v", path, row, p)
		}
	}()
	// The page index and bloom filters are not needed for a full scan; skipping them also
	// keeps parquet-go away from more length fields a damaged file could inflate.
	pf, err := pqcheck.Open(in, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if errors.Is(err, pqcheck.ErrIncomplete) {
		// The usual cause here: say so.
		if _, serr := os.Stat(JournalPath(path)); serr != nil {
			return fmt.Errorf("results: %s: %w (a run killed before its writer closed leaves no footer, and there is no journal beside it to recover its rows from)", path, err)
		}
		return fmt.Errorf("results: %s: %w (a run killed before its writer closed leaves no footer: Recover rebuilds the file from %s)", path, err, JournalPath(path))
	}
	if err != nil {
		return fmt.Errorf("results: %s: %w", path, err)
	}
	if fields, ok := columnFields(pf.Schema()); ok && mode != byGeneric {
		err := readColumns(pf, fields, mode == byColumnsShared, &row, fn)
		var fe errFn
		switch {
		case errors.As(err, &fe):
			return fmt.Errorf("results: %s: row %d: %w", path, row, fe.err)
		case err != nil:
			return fmt.Errorf("results: %s: row %d: %w", path, row, err)
		case int64(row) != pf.NumRows():
			return fmt.Errorf("results: %s: read %d rows, footer says %d", path, row, pf.NumRows())
		}
		return nil
	}
	return readGeneric(path, pf, &row, fn)
}

// readGeneric reads rows through parquet-go's GenericReader[results.Row], which converts a
// file of another schema (an older build's) to the row's.
func readGeneric(path string, pf *parquet.File, rowp *int, fn func(results.Row) error) error {
	row := *rowp
	defer func() { *rowp = row }()
	r := parquet.NewGenericReader[results.Row](pf)
	defer r.Close()
	buf := make([]results.Row, readBatch)
	for {
		// Clear the batch: the reader may otherwise reuse slices handed to fn.
		clear(buf)
		n, rerr := r.Read(buf)
		for i := 0; i < n; i++ {
			if ferr := fn(buf[i]); ferr != nil {
				return fmt.Errorf("results: %s: row %d: %w", path, row, ferr)
			}
			row++
		}
		if errors.Is(rerr, io.EOF) {
			if want := pf.NumRows(); int64(row) != want {
				return fmt.Errorf("results: %s: read %d rows, footer says %d", path, row, want)
			}
			return nil
		}
		if rerr != nil {
			return fmt.Errorf("results: %s: row %d: %w", path, row, rerr)
		}
		if n == 0 {
			return fmt.Errorf("results: %s: row %d: reader made no progress", path, row)
		}
	}
}
