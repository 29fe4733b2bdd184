package shard

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/runfolder"
)

// load makes a cut shard's rows whole (rowfile.Recover, as `replay report` does) and reads
// its summary.json for what rows cannot say: requests never sent and the shard's verdict.
func (f *Folder) load() error {
	rec, err := rowfile.Recover(f.rowsPath())
	if err != nil {
		return err // names the file already
	}
	if rec != nil {
		f.Recovery = rec.String()
	}
	s, err := analysis.ReadSummary(filepath.Join(f.Folder, runfolder.Summary))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s = nil
	case err != nil:
		return fmt.Errorf("shard: %w", err)
	case s.Run.Partial || (rec != nil && s.Run.StartedAt.Before(rec.JournalCreated)):
		s = nil // a snapshot, or an earlier run's summary in the same folder: not this run's
	}
	f.summary = s
	var own *analysis.RunInfo
	if s != nil {
		own = &s.Run
	}
	if f.calibration, err = analysis.RunCalibration(f.Folder, own, rec); err != nil {
		return fmt.Errorf("shard: %w", err)
	}
	f.Verdict = f.verdict(rec)
	if s != nil && !s.Run.Recovered {
		// A run that closed counted what it never sent; a cut one (even if `replay report`
		// summarised it since) could not.
		n := s.Requests.NotSent
		f.NotSent = &n
	}
	return nil
}

// verdict is the shard's own verdict: its summary's, else that it was cut.
func (f *Folder) verdict(rec *results.Recovery) string {
	switch {
	case rec != nil && (f.summary == nil || !f.summary.Run.Recovered):
		return fmt.Sprintf("%s: the shard ended before it closed; %d rows recovered from its journal", analysis.VerdictCut, rec.Rows)
	case f.summary != nil:
		return f.summary.Verdict
	}
	return ""
}

// loadAll loads every folder, then checks that they ran at one speed: two shards of one
// schedule cannot differ in it, and the merged figures need one.
func loadAll(fs []*Folder) error {
	var base *Folder
	for _, f := range fs {
		if err := f.load(); err != nil {
			return err
		}
		if f.summary == nil {
			continue
		}
		if base == nil {
			base = f
		} else if base.summary.Run.Speed != f.summary.Run.Speed {
			return fmt.Errorf("shard: merge: %s ran at speed %g but %s at speed %g: shards of one run share --speed, merge refused",
				base.Folder, base.summary.Run.Speed, f.Folder, f.summary.Run.Speed)
		}
	}
	return nil
}
