package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/results"
)

// PartialDir holds a running replay's row segments, beside its refreshed summary.
const PartialDir = "partial"

// snapshots refresh summary.json and report.html every interval while a run goes, marked
// partial, so a day-long replay can be read before it ends. requests.parquet gets its footer
// only at the end, so the rows a snapshot counts are in closed Parquet segments of their own
// (partial/rows-NNNN.parquet, one per interval: DuckDB reads them as one glob); each row is
// encoded twice while snapshots are on, and the segments are removed when the run closes.
// It runs on the sink's goroutine, beside the metrics it reads.
type snapshots struct {
	dir   string
	every time.Duration
	next  time.Time
	seg   *results.Writer
	n     int
	info  func() analysis.RunInfo
	warn  func(error)
}

func newSnapshots(dir string, every time.Duration, info func() analysis.RunInfo, warn func(error)) (*snapshots, error) {
	s := &snapshots{dir: dir, every: every, next: time.Now().Add(every), info: info, warn: warn}
	if err := os.MkdirAll(filepath.Join(dir, PartialDir), 0o755); err != nil {
		return nil, fmt.Errorf("snapshots: %w", err)
	}
	return s, s.open()
}

// segment is the n-th segment's path; it is written as path+".open" and renamed when closed,
// so the glob the summary names matches whole files only.
func (s *snapshots) segment(n int) string {
	return filepath.Join(s.dir, PartialDir, fmt.Sprintf("rows-%04d.parquet", n))
}

func (s *snapshots) open() error {
	s.n++
	w, err := results.NewWriterWith(s.segment(s.n)+".open", results.WriterOptions{NoJournal: true})
	s.seg = w
	return err
}

// add writes a row to the current segment.
func (s *snapshots) add(r results.Row) {
	if err := s.seg.Write(r); err != nil {
		s.warn(fmt.Errorf("snapshot rows: %w", err))
	}
}

// maybe takes a snapshot when one is due.
func (s *snapshots) maybe(m *analysis.Metrics) {
	if time.Now().Before(s.next) {
		return
	}
	s.next = time.Now().Add(s.every)
	if err := s.take(m); err != nil {
		s.warn(err)
	}
}

// take closes the segment, writes the partial summary and report over the rows so far, and
// opens the next segment.
func (s *snapshots) take(m *analysis.Metrics) error {
	if err := s.seg.Close(); err != nil {
		return fmt.Errorf("snapshot rows: %w", err)
	}
	if err := os.Rename(s.segment(s.n)+".open", s.segment(s.n)); err != nil {
		return fmt.Errorf("snapshot rows: %w", err)
	}
	info := s.info()
	info.Partial = true
	info.PartialRows = filepath.ToSlash(filepath.Join(PartialDir, "rows-*.parquet"))
	if _, err := analysis.WriteRunFiles(s.dir, m, info); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	return s.open()
}

// close ends the last segment and removes them all: the run's own files now hold every row.
func (s *snapshots) close() error {
	err := s.seg.Close()
	return errors.Join(err, os.RemoveAll(filepath.Join(s.dir, PartialDir)))
}
