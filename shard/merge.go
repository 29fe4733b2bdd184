package shard

import (
	"context"
	"fmt"
	"os"
	"reflect"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/runfolder"
)

// Result is what Merge did.
type Result struct {
	// Folders are the merged shards in order of K; Missing the K of shares no folder held.
	Folders []*Folder
	Missing []int
	// Rows were written to the merged requests.parquet.
	Rows int64
	// Schedule accounts for the combined schedule's requests; Summary is the merged
	// summary.json (its Verdict the merged verdict).
	Schedule Schedule
	Summary  *analysis.Summary
	// Warnings are what a person should know but that did not stop the merge (shards of
	// different replay versions).
	Warnings []string
}

// Merge combines the folders of one sharded run into out: requests.parquet with every row of
// every shard once (in order of K; shards.json gives each shard's row range), summary.json
// and report.html computed over all rows by one aggregation (percentiles exact over all
// rows, never combined from the shards'), and shards.json. It refuses folders that are not
// shares of one schedule (another trace, N, start or schedule flags; a K given twice; a
// request id in two shards), with errors naming the folders, and makes a cut shard whole
// from its journal first. A missing share is no error: it is named in shards.json, the
// schedule's line and the verdict.
func Merge(ctx context.Context, out string, dirs []string) (*Result, error) {
	fs, err := openFolders(out, dirs)
	if err != nil {
		return nil, err
	}
	if err := loadAll(fs); err != nil {
		return nil, err
	}
	o, err := options(fs)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("shard: merge: %w", err)
	}
	r := &Result{Folders: fs, Missing: missing(fs), Warnings: warnings(fs)}
	m := analysis.NewMetrics(o)
	if r.Rows, err = copyRows(ctx, out, fs, m); err != nil {
		return nil, err
	}
	r.Schedule = schedule(fs, r.Missing)
	info := runInfo(fs, r.Schedule.NotSent)
	info.Calibration = ""
	if o.Calibration != nil {
		info.Calibration = runfolder.Calibration
	}
	r.Summary = m.Summary(info)
	r.Summary.Verdict = mergedVerdict(r.Summary.Verdict, fs, r.Missing, fs[0].info.Shards)
	if err := writeManifest(out, r.manifest()); err != nil {
		return nil, err
	}
	if err := writeRunFiles(out, m, r.Summary, o.Calibration, r.Schedule.Line); err != nil {
		return nil, err
	}
	return r, nil
}

// warnings are the merge's notes that do not refuse it.
func warnings(fs []*Folder) []string {
	var w []string
	for _, f := range fs[1:] {
		if f.Version != fs[0].Version {
			w = append(w, fmt.Sprintf("%s was written by replay %s but %s by %s: the shares were split by different versions", fs[0].Label(), orUnknown(fs[0].Version), f.Label(), orUnknown(f.Version)))
		}
	}
	if base(fs) == nil {
		w = append(w, "no shard wrote a summary.json (all were cut): speed 1 and no SLO assumed")
	}
	if c := calibration(fs); c != nil {
		for _, f := range fs {
			if !reflect.DeepEqual(f.calibration, c) {
				w = append(w, fmt.Sprintf("%s was not run with the calibration of the others (--calibration): TTFT is split by the first one's", f.Label()))
			}
		}
	}
	return w
}

func orUnknown(v string) string {
	if v == "" {
		return "(unknown)"
	}
	return v
}
