package runner

import (
	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/results"
)

// sink takes finished rows from thousands of sender goroutines and hands them, in one goroutine,
// to the Parquet writer and the incremental metrics, so neither needs a lock on the send path
// and a slow disk never stalls a sender for long (the channel absorbs bursts).
type sink struct {
	rows chan results.Row
	done chan error
}

func newSink(w *results.Writer, m *analysis.Metrics) *sink {
	s := &sink{rows: make(chan results.Row, 8192), done: make(chan error, 1)}
	go func() {
		var first error
		for row := range s.rows {
			if err := w.Write(row); err != nil && first == nil {
				first = err
			}
			m.Add(&row)
		}
		if err := w.Close(); err != nil && first == nil {
			first = err
		}
		s.done <- first
	}()
	return s
}

func (s *sink) put(r results.Row) { s.rows <- r }

// close waits for every row to be written and the file to be closed validly.
func (s *sink) close() error {
	close(s.rows)
	return <-s.done
}
