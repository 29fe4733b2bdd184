package runner

import (
	"errors"
	"io"

	"github.com/llm-replay/replay/progress"
	"github.com/llm-replay/replay/results"
)

// Progress modes (Config.Progress), package progress's.
const (
	ProgressAuto  = progress.Auto
	ProgressPlain = progress.Plain
	ProgressJSON  = progress.JSON
)

// Output is one consumer of a run's finished rows: requests.parquet and its journal
// (rowfile.Writer), the summary's aggregator (analysis.Metrics), replay's own Prometheus series
// (live.Metrics), the partial summaries (snapshots) and the progress line's error count. The
// sink calls Add on its one goroutine, so an output needs no lock of its own against the
// others; every output sees the same row, so none may modify it (its slices included). An
// output that holds a file is also an io.Closer: the sink closes it after the last row, in
// the order the outputs were given.
type Output interface {
	Add(r *results.Row)
}

// sink takes finished rows from thousands of sender goroutines and hands them, in one goroutine,
// to the run's outputs in order, so none needs a lock on the send path and a slow disk never
// stalls a sender for long (the channel absorbs bursts).
type sink struct {
	rows chan results.Row
	done chan error
}

func newSink(outs ...Output) *sink {
	s := &sink{rows: make(chan results.Row, 8192), done: make(chan error, 1)}
	go s.loop(outs)
	return s
}

// loop hands each row to every output until the rows end, then closes the outputs that close.
func (s *sink) loop(outs []Output) {
	for row := range s.rows {
		for _, o := range outs {
			o.Add(&row)
		}
	}
	var errs []error
	for _, o := range outs {
		if c, ok := o.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	s.done <- errors.Join(errs...)
}

func (s *sink) put(r results.Row) { s.rows <- r }

// close waits for every row to reach every output and the outputs to be closed validly.
func (s *sink) close() error {
	close(s.rows)
	return <-s.done
}
