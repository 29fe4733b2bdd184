package analysis

import (
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"path/filepath"

	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/runfolder"
)

// LoadRows aggregates a run folder's rows, given as they are read from dir/requests.parquet
// (the reading is the caller's: analysis does not read Parquet, runload.LoadDir does), and
// the endpoint's queue from dir/server_metrics.jsonl when the run scraped one. The run's
// metadata comes from dir/summary.json when a run wrote one (so `replay report` can
// regenerate it faithfully); a non-zero o.Speed or o.SLO overrides the speed and SLO found
// there. rows is read once, after the summary and the calibration; its error ends the load.
// No row's slices are kept past its step (Metrics.Add keeps numbers only), so rows may share
// one array of chunk offsets (rowfile.RowsReused).
//
// rec is the recovery of a run cut before its writer closed (rowfile.Recover), or nil: the
// returned RunInfo is then marked Recovered with the Recovery (its String is the line to
// print), and a summary.json older than the journal (an earlier run's, in the same folder)
// is not taken for this run's.
func LoadRows(dir string, rec *results.Recovery, rows iter.Seq2[results.Row, error], o Options) (*Metrics, RunInfo, error) {
	info, own, err := runInfo(dir, rec)
	if err != nil {
		return nil, info, err
	}
	if o.Calibration == nil {
		var ownInfo *RunInfo
		if own {
			ownInfo = &info
		}
		if o.Calibration, err = RunCalibration(dir, ownInfo, rec); err != nil {
			return nil, info, err
		}
	}
	if o.Speed > 0 {
		info.Speed = o.Speed
	} else {
		o.Speed = info.Speed
	}
	if o.SLO.IsZero() && info.SLO != "" {
		if o.SLO, err = ParseSLO(info.SLO); err != nil {
			return nil, info, fmt.Errorf("%s: run.slo: %w", filepath.Join(dir, runfolder.Summary), err)
		}
	}
	info.SLO = o.SLO.String()
	if err := classLimits(&o, &info); err != nil {
		return nil, info, fmt.Errorf("%s: run.slo_classes: %w", filepath.Join(dir, runfolder.Summary), err)
	}
	m := NewMetrics(o)
	for r, err := range rows {
		if err != nil {
			return nil, info, err // names the file and row already
		}
		m.Add(&r)
	}
	samples, err := results.ReadServerMetrics(filepath.Join(dir, runfolder.ServerMetrics))
	switch {
	case err == nil:
		m.AddServerSamples(samples)
	case errors.Is(err, fs.ErrNotExist): // not scraped, or the endpoint had no /metrics
	default:
		return nil, info, err
	}
	if err := m.addGPUFiles(dir); err != nil { // GPU exporters' series, for report.html's plots
		return nil, info, err
	}
	m.Close()
	return m, info, nil
}

// runInfo is the run's metadata from dir/summary.json, if any is this run's (own), marked
// with the run's recovery when it was cut.
func runInfo(dir string, rec *results.Recovery) (info RunInfo, own bool, err error) {
	prev, err := ReadSummary(filepath.Join(dir, runfolder.Summary))
	switch {
	case err == nil && (rec == nil || !prev.Run.StartedAt.Before(rec.JournalCreated)):
		own = true
		info = prev.Run
		info.NotSent = prev.Requests.NotSent
		info.Input = prev.Input
		// Rows cannot say what the server's metrics or the trace's hashes said: keep them.
		info.ServerCache, info.IdealCache = prev.Cache.Server, prev.Cache.Ideal
		info.ClientLimit, info.MaxInFlight = prev.Client.Limit, prev.Client.MaxInFlight
		info.Partial, info.PartialRows = false, "" // a snapshot's: the rows are whole now
	case err == nil, errors.Is(err, fs.ErrNotExist):
	default:
		return info, false, err
	}
	if rec != nil {
		info.Recovered, info.Recovery = true, rec
		if info.StartedAt.IsZero() {
			info.StartedAt = rec.JournalCreated.UTC()
		}
	}
	return info, own, nil
}
