package runner

import (
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/live"
	"github.com/llm-replay/replay/results"
)

// sink takes finished rows from thousands of sender goroutines and hands them, in one goroutine,
// to the Parquet writer and the incremental metrics, so neither needs a lock on the send path
// and a slow disk never stalls a sender for long (the channel absorbs bursts).
type sink struct {
	rows chan results.Row
	done chan error
	// live and snap, when set, see every row too: replay's own Prometheus series and the
	// partial summaries.
	live *live.Metrics
	snap *snapshots
}

func newSink(w *results.Writer, m *analysis.Metrics, lm *live.Metrics, snap *snapshots) *sink {
	s := &sink{rows: make(chan results.Row, 8192), done: make(chan error, 1), live: lm, snap: snap}
	go s.loop(w, m)
	return s
}

// loop hands each row on, and takes the snapshots when due, until the rows end.
func (s *sink) loop(w *results.Writer, m *analysis.Metrics) {
	var tick <-chan time.Time
	if s.snap != nil {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		tick = t.C
	}
	var first error
	for {
		select {
		case row, ok := <-s.rows:
			if !ok {
				if err := w.Close(); err != nil && first == nil {
					first = err
				}
				s.done <- first
				return
			}
			if err := w.Write(row); err != nil && first == nil {
				first = err
			}
			m.Add(&row)
			s.observe(&row)
		case <-tick:
			s.snap.maybe(m)
		}
	}
}

// observe shows a row to the live series and the snapshot segment.
func (s *sink) observe(r *results.Row) {
	if s.live != nil {
		s.live.Observe(r, r.Population)
	}
	if s.snap != nil {
		s.snap.add(*r)
	}
}

func (s *sink) put(r results.Row) { s.rows <- r }

// close waits for every row to be written and the file to be closed validly.
func (s *sink) close() error {
	close(s.rows)
	return <-s.done
}
