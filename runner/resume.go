package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/scheduler"
)

// resumeState is what a killed or stopped run left in its folder for Config.Resume to go on
// from: its rows (recovered from the journal when it was cut), moved aside to be copied into
// the resumed run's file, and its send log, which tells the requests lost at the kill (sent,
// never finished: the server saw them, so they are not sent again) from those never sent.
type resumeState struct {
	before   string // the earlier rows (runfolder.BeforeResume); "" when none had finished
	rows     int64  // rows before the resume: every attempt, warmup included
	finished int    // measured requests whose last attempt has its row
	lost     int    // sent, never finished
	unsent   []bool // by plan index: what the resumed run sends
	sends    sentSet
	lastDone int64     // the latest DoneNS of the earlier rows
	lastSeen time.Time // the killed run's last write to its folder (send log, journal)
}

// nothingToResume is the error of a --resume whose folder holds no send log.
func nothingToResume(out string) error {
	return fmt.Errorf("resume %s: no %s: the run sent and finished its whole schedule (nothing to resume), or the folder is not a run's", out, runfolder.Sends)
}

// checkResumable refuses a --resume with nothing to resume before the endpoint is asked
// anything: a finished run's folder says so whatever the endpoint's state.
func checkResumable(cfg Config) error {
	if !cfg.Resume {
		return nil
	}
	if _, err := os.Stat(filepath.Join(cfg.Out, runfolder.Sends)); errors.Is(err, fs.ErrNotExist) {
		return nothingToResume(cfg.Out)
	}
	return nil
}

// loadResume reads cfg.Out's killed run for a plan of p's requests. The plan must be the one
// that run sent (the same settings over the same trace: cmd/replay takes them from run.yaml);
// a different request count is refused.
func loadResume(cfg Config, p *plan) (*resumeState, error) {
	out := cfg.Out
	sendsPath := filepath.Join(out, runfolder.Sends)
	ss, err := readSendLog(sendsPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nothingToResume(out)
	}
	if err != nil {
		return nil, fmt.Errorf("resume %s: %w", out, err)
	}
	if ss.n != p.count() {
		return nil, fmt.Errorf("resume %s: the plan has %d requests, the run being resumed had %d: its trace or settings changed", out, p.count(), ss.n)
	}
	r := &resumeState{sends: ss, lastSeen: latestWrite(sendsPath, filepath.Join(out, runfolder.Journal))}
	rowsPath := filepath.Join(out, runfolder.Requests)
	if rec, err := rowfile.Recover(rowsPath); err != nil {
		return nil, fmt.Errorf("resume %s: %w", out, err)
	} else if rec != nil && rec.Rebuilt {
		fmt.Fprintf(cfg.Stderr, "replay: resume: %s\n", rec)
	}
	finished := make([]bool, ss.n)
	if err := r.readRows(rowsPath, finished); err != nil {
		return nil, fmt.Errorf("resume %s: %w", out, err)
	}
	r.unsent = make([]bool, ss.n)
	for i := range ss.n {
		switch {
		case finished[i]:
			r.finished++
		case ss.sent[i]:
			r.lost++
		default:
			r.unsent[i] = true
		}
	}
	if r.finished+r.lost == ss.n {
		return nil, fmt.Errorf("resume %s: every request of the plan was sent (%d finished, %d lost at the kill): nothing to resume", out, r.finished, r.lost)
	}
	return r, nil
}

// readRows notes which measured requests finished (their last attempt's row) and moves the
// rows aside for the resumed run to copy. A folder whose run was killed before any row
// finished has no file.
func (r *resumeState) readRows(path string, finished []bool) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	for row, err := range rowfile.Rows(path) {
		if err != nil {
			return err
		}
		if stoppedByRun(&row) {
			continue // lost at the stop, as a killed run's in-flight requests are
		}
		r.rows++
		r.lastDone = max(r.lastDone, row.DoneNS)
		if row.Warmup || row.Retried {
			continue
		}
		i, err := strconv.Atoi(row.RequestID)
		if err != nil || i < 0 || i >= len(finished) {
			return fmt.Errorf("%s: request_id %q is not one of the plan's %d requests", path, row.RequestID, len(finished))
		}
		finished[i] = true
	}
	r.before = filepath.Join(filepath.Dir(path), runfolder.BeforeResume)
	if err := os.Rename(path, r.before); err != nil {
		return fmt.Errorf("moving the earlier rows aside: %w", err)
	}
	return nil
}

// stoppedByRun reports whether a row is a request the run itself cut when it was stopped
// (SIGINT, SIGTERM: class canceled, not as its client cancelled it in the log): like a request
// in flight at a kill it says nothing of the endpoint, so a resume counts it lost and keeps no
// row of it (a failure it is not).
func stoppedByRun(row *results.Row) bool {
	return row.ErrorClass == client.ErrCanceled && !row.CancelledAsLogged
}

// latestWrite is the latest modification time of the files that exist among paths.
func latestWrite(paths ...string) time.Time {
	var t time.Time
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.ModTime().After(t) {
			t = fi.ModTime()
		}
	}
	return t
}

// items keeps the unsent requests of the schedule and returns the offset the resumed run's
// clock starts at on the killed run's: the first unsent request's own offset in the
// schedule, or the killed run's last finished row when that was later (it ran behind), so the
// two parts' rows share one time line and never overlap. The resumed scheduler re-bases its
// window to its first item, so each row it writes is shifted by that offset.
func (r *resumeState) items(all []scheduler.Item, speed float64) ([]scheduler.Item, int64) {
	var kept []scheduler.Item
	origin, first := all[0].Timestamp, time.Duration(-1)
	for _, it := range all {
		origin = min(origin, it.Timestamp)
		if r.unsent[it.Index] {
			kept = append(kept, it)
			if first < 0 || it.Timestamp < first {
				first = it.Timestamp
			}
		}
	}
	at := int64(float64(first-origin) / speed)
	return kept, max(at, r.lastDone)
}

// copyRows hands the earlier rows to the resumed run's sink (its file, its summary, its live
// series) before the first send, so the resumed folder holds every row once.
func (r *resumeState) copyRows(sk *sink) error {
	if r.before == "" {
		return nil
	}
	for row, err := range rowfile.Rows(r.before) {
		if err != nil {
			return fmt.Errorf("resume: copying the earlier rows: %w", err)
		}
		if !stoppedByRun(&row) {
			sk.put(row)
		}
	}
	return nil
}

// removeBefore deletes the earlier rows' file once the resumed run's file holds them.
func (r *resumeState) removeBefore() error {
	if r.before == "" {
		return nil
	}
	return os.Remove(r.before)
}

// summary is the resume's account for summary.json; gap is the wall time from the killed
// run's last write to the resumed run's first send, at is where on the time line it began.
func (r *resumeState) summary(gap time.Duration, at int64) *analysis.Resume {
	return &analysis.Resume{RowsBefore: r.rows, FinishedBefore: int64(r.finished), LostAtKill: int64(r.lost),
		GapS: gap.Seconds(), ResumedAtS: float64(at) / 1e9}
}

// copyResumed puts a resumed run's earlier rows into its one leg's sink (a resume is a
// single run's: Validate).
func (x *execution) copyResumed() error {
	if x.p.resume == nil {
		return nil
	}
	r := x.p.resume
	fmt.Fprintf(x.cfg.Stderr, "replay: resuming %s: %d requests finished before the kill, %d were in flight and are lost, %d go on from %.1f s of the run\n",
		x.cfg.Out, r.finished, r.lost, len(x.items), float64(x.shift)/1e9)
	return r.copyRows(x.legs[0].sk)
}

// noteResume keeps the resume's account as the resumed schedule starts: the gap ends here.
func (x *execution) noteResume() {
	if r := x.p.resume; r != nil {
		x.legs[0].o.resume = r.summary(time.Since(r.lastSeen), x.shift)
	}
}

// endSends closes each leg's send log once its rows are on disk: removed when the whole
// schedule was sent and nothing stopped the run (nothing is left to resume), kept otherwise;
// a resumed run's earlier rows' file goes once its file holds them.
func (x *execution) endSends(runErr error) error {
	var errs []error
	for _, l := range x.legs {
		if l.sends == nil {
			continue
		}
		whole := runErr == nil && l.o.stats.Stop == scheduler.StopCompleted && l.o.stats.NotSent == 0
		errs = append(errs, l.sends.close(whole))
	}
	if x.p.resume != nil && runErr == nil {
		errs = append(errs, x.p.resume.removeBefore())
	}
	return errors.Join(errs...)
}
