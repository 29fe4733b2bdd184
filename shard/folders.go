package shard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/runfolder"
)

// Folder is one shard's folder as merged, and its line in shards.json.
type Folder struct {
	Folder  string `json:"folder"`
	Shard   int    `json:"shard"`
	Host    string `json:"host,omitempty"`
	Version string `json:"version,omitempty"`
	// FirstRow is the index in the merged requests.parquet of this shard's first row; its
	// Rows follow it contiguously, which is how a merged row's shard is known (results.Row
	// has no shard column).
	FirstRow int64 `json:"first_row"`
	Rows     int64 `json:"rows"`
	// RequestIDs counts the shard's distinct measured request ids (warmup rows and retried
	// attempts are rows but not requests of the schedule); WarmupRows its warmup rows.
	RequestIDs int64 `json:"request_ids"`
	WarmupRows int64 `json:"warmup_rows"`
	// NotSent is the shard's requests.not_sent from its summary.json: requests of its share
	// that never left. Null when unknown (the shard was cut before it could count them).
	NotSent *int64 `json:"not_sent"`
	// Verdict is the shard's own verdict (cut, when it was cut and wrote none).
	Verdict string `json:"verdict,omitempty"`
	// Recovery says how a cut shard's rows were recovered from its journal before the merge.
	Recovery string `json:"recovery,omitempty"`

	info    Info
	summary *analysis.Summary // nil when the shard wrote none for this run
	// calibration is the one the shard's run was given (--calibration), nil for none.
	calibration *analysis.Calibration
}

// Label names the shard and its folder, for errors and verdicts.
func (f *Folder) Label() string { return fmt.Sprintf("%s (%s)", f.info.Label(), f.Folder) }

func (f *Folder) rowsPath() string { return filepath.Join(f.Folder, runfolder.Requests) }

// openFolders reads every folder's shard.json, checks that together they are shares of one
// schedule, and returns them in order of K.
func openFolders(out string, dirs []string) ([]*Folder, error) {
	if len(dirs) == 0 {
		return nil, errors.New("shard: merge: no shard folders given")
	}
	if err := checkOut(out, dirs); err != nil {
		return nil, err
	}
	fs := make([]*Folder, 0, len(dirs))
	for _, d := range dirs {
		info, err := ReadInfo(d)
		if err != nil {
			return nil, err
		}
		fs = append(fs, &Folder{Folder: d, Shard: info.Shard, Host: info.Host, Version: info.Version, info: info})
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].Shard < fs[j].Shard })
	for _, f := range fs[1:] {
		if err := sameSchedule(fs[0], f); err != nil {
			return nil, err
		}
	}
	for i := 1; i < len(fs); i++ {
		if fs[i].Shard == fs[i-1].Shard {
			return nil, fmt.Errorf("shard: merge: %s and %s are both %s: each share must be given once", fs[i-1].Folder, fs[i].Folder, fs[i].info.Label())
		}
	}
	return fs, nil
}

// sameSchedule refuses two folders that are not shares of one schedule: another trace,
// another N, another start or other schedule flags.
func sameSchedule(a, b *Folder) error {
	ai, bi := a.info, b.info
	switch {
	case !ai.Trace.Same(bi.Trace):
		return fmt.Errorf("shard: merge: %s replayed trace %s but %s replayed %s: shards of different traces are not one run, merge refused", a.Folder, ai.Trace, b.Folder, bi.Trace)
	case ai.Shards != bi.Shards:
		return fmt.Errorf("shard: merge: %s is %s but %s is %s: shards of different splits are not one run, merge refused", a.Folder, ai.Label(), b.Folder, bi.Label())
	case !ai.StartAt.Equal(bi.StartAt):
		return fmt.Errorf("shard: merge: %s started at %s but %s at %s: shards of one run share one --start-at, merge refused", a.Folder, ai.StartAt.Format(timeFormat), b.Folder, bi.StartAt.Format(timeFormat))
	case ai.Schedule != bi.Schedule:
		return fmt.Errorf("shard: merge: %s was scheduled with %q but %s with %q: shards of one run share their schedule flags, merge refused", a.Folder, ai.Schedule, b.Folder, bi.Schedule)
	}
	return nil
}

// timeFormat is how instants appear in errors and shards.json.
const timeFormat = "2006-01-02T15:04:05.999999999Z07:00"

// checkOut refuses an output folder that would overwrite or confuse a shard's: one of the
// inputs, or a folder holding a run's journal (which `replay report` would take for the
// truth over the merged rows).
func checkOut(out string, dirs []string) error {
	for _, d := range dirs {
		if sameDir(out, d) {
			return fmt.Errorf("shard: merge: --out %s is one of the shard folders: merge into a new folder", out)
		}
	}
	if _, err := os.Stat(rowfile.JournalPath(filepath.Join(out, runfolder.Requests))); err == nil {
		return fmt.Errorf("shard: merge: --out %s holds a run's %s: merge into a new folder", out, filepath.Base(rowfile.JournalPath(runfolder.Requests)))
	}
	return nil
}

// sameDir reports whether a and b name one folder (as given, or the same file on disk).
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// missing is the K of every share of N that no folder holds; fs is sorted by K.
func missing(fs []*Folder) []int {
	var ks []int
	next := 0
	for _, f := range fs {
		for ; next < f.Shard; next++ {
			ks = append(ks, next)
		}
		next = f.Shard + 1
	}
	for ; next < fs[0].info.Shards; next++ {
		ks = append(ks, next)
	}
	return ks
}
