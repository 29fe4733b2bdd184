package snapshot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/report"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/results/rowfile"
)

// PartialDir holds a running replay's row segments, beside its refreshed summary.
const PartialDir = "partial"

// Snapshots refresh summary.json and report.html every interval while a run goes, marked
// partial, so a day-long replay can be read before it ends. requests.parquet gets its footer
// only at the end, so the rows a snapshot counts are in closed Parquet segments of their own
// (partial/rows-NNNN.parquet, one per interval: DuckDB reads them as one glob); each row is
// encoded twice while snapshots are on, and the segments are removed when the run closes.
// It is one of a run's row outputs (runner.Output), fed after the Metrics it reads and on the
// same goroutine; a snapshot is taken with the first row after it is due (with no row since
// the last one there is nothing new to show).
type Snapshots struct {
	dir   string
	every time.Duration
	next  time.Time
	seg   *rowfile.Writer
	n     int
	m     *analysis.Metrics
	info  analysis.RunInfo
	warn  func(error)
}

// New starts the segments in dir; m is the run's aggregator, info the summary's run
// block as known before the first send, warn where a failed snapshot is said (the run goes on).
func New(dir string, every time.Duration, m *analysis.Metrics, info analysis.RunInfo, warn func(error)) (*Snapshots, error) {
	s := &Snapshots{dir: dir, every: every, next: time.Now().Add(every), m: m, info: info, warn: warn}
	if err := os.MkdirAll(filepath.Join(dir, PartialDir), 0o755); err != nil {
		return nil, fmt.Errorf("snapshots: %w", err)
	}
	return s, s.open()
}

// segment is the n-th segment's path; it is written as path+".open" and renamed when closed,
// so the glob the summary names matches whole files only.
func (s *Snapshots) segment(n int) string {
	return filepath.Join(s.dir, PartialDir, fmt.Sprintf("rows-%04d.parquet", n))
}

func (s *Snapshots) open() error {
	s.n++
	w, err := rowfile.NewWriterWith(s.segment(s.n)+".open", rowfile.WriterOptions{NoJournal: true})
	s.seg = w
	return err
}

// Add writes a row to the current segment, then takes a snapshot when one is due.
func (s *Snapshots) Add(r *results.Row) {
	if err := s.seg.Write(*r); err != nil {
		s.warn(fmt.Errorf("snapshot rows: %w", err))
	}
	if time.Now().Before(s.next) {
		return
	}
	s.next = time.Now().Add(s.every)
	if err := s.take(); err != nil {
		s.warn(err)
	}
}

// take closes the segment, writes the partial summary and report over the rows so far, and
// opens the next segment.
func (s *Snapshots) take() error {
	if err := s.seg.Close(); err != nil {
		return fmt.Errorf("snapshot rows: %w", err)
	}
	if err := os.Rename(s.segment(s.n)+".open", s.segment(s.n)); err != nil {
		return fmt.Errorf("snapshot rows: %w", err)
	}
	info := s.info
	info.Partial = true
	info.PartialRows = filepath.ToSlash(filepath.Join(PartialDir, "rows-*.parquet"))
	if _, err := report.WriteRunFiles(s.dir, s.m, info); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	return s.open()
}

// Close ends the last segment and removes them all: the run's own files now hold every row.
func (s *Snapshots) Close() error {
	err := s.seg.Close()
	return errors.Join(err, os.RemoveAll(filepath.Join(s.dir, PartialDir)))
}
