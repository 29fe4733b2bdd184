package rowfile

import (
	"errors"
	"iter"

	"github.com/llm-replay/replay/results"
)

// errStopped ends a Read when the loop over Rows breaks early.
var errStopped = errors.New("rowfile: stopped by the caller")

// Rows is Read as an iterator, for the figures' code that must not read Parquet itself
// (analysis takes its rows this way): each row in file order with a nil error, or, once, the
// error that ended the read (it names the file and row, as Read's do). Breaking out of the
// loop stops the read.
func Rows(path string) iter.Seq2[results.Row, error] { return rowsOf(path, byColumns) }

// RowsReused is Rows for a loop that keeps no row's ChunkNS past its step (analysis.LoadRows,
// whose aggregation keeps numbers only): the rows of each batch share one array of chunk
// offsets, written over by the next batch, instead of a new one a batch (a run's rows hold
// about 140 offsets each: their allocation and collection were a quarter of the read).
// Strings are the row's own as in Rows.
func RowsReused(path string) iter.Seq2[results.Row, error] { return rowsOf(path, byColumnsShared) }

func rowsOf(path string, mode readMode) iter.Seq2[results.Row, error] {
	return func(yield func(results.Row, error) bool) {
		err := readPath(path, mode, func(r results.Row) error {
			if !yield(r, nil) {
				return errStopped
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStopped) {
			yield(results.Row{}, err)
		}
	}
}
