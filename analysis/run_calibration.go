package analysis

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/runfolder"
)

// run_calibration.go finds the calibration a run folder's run was given. A calibrated run keeps
// a copy beside its rows (calibration.json, named by the summary's run.calibration), so that
// the split of TTFT into prefill and queueing outlives the run: `replay report` of the folder,
// the recovery of a cut run and a shard merge split it again with the same curve.

// calibrationSkew is how much older than a cut run's journal its calibration.json may be and
// still be that run's when no summary of the run says so: the run writes it just before the
// journal, and file times come from a coarse clock. A calibrate folder reused by a later,
// uncalibrated run holds an older file.
const calibrationSkew = time.Second

// RunCalibration is the calibration dir's run was given, or nil: the file named by own, the
// run's own summary's run block, or, for a cut run with no summary of its own (own nil), by
// dir/calibration.json when it was written with the run's journal (rec).
func RunCalibration(dir string, own *RunInfo, rec *results.Recovery) (*Calibration, error) {
	if own != nil {
		if own.Calibration == "" {
			return nil, nil
		}
		c, err := ReadCalibration(filepath.Join(dir, own.Calibration))
		if err != nil {
			return nil, fmt.Errorf("%s: run.calibration names %s, which the run wrote at its start: %w (pass --calibration FILE to split the run with another)",
				filepath.Join(dir, runfolder.Summary), own.Calibration, err)
		}
		return c, nil
	}
	if rec == nil || rec.JournalCreated.IsZero() {
		return nil, nil
	}
	path := filepath.Join(dir, runfolder.Calibration)
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("calibration: %w", err)
	case st.ModTime().Before(rec.JournalCreated.Add(-calibrationSkew)):
		return nil, nil // an earlier run's, or replay calibrate's own
	}
	return ReadCalibration(path)
}
