package runload

import (
	"path/filepath"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/runfolder"
)

// LoadDir aggregates dir/requests.parquet, streaming its rows (rowfile.RowsReused: the
// aggregation keeps no row's slices), with the rest of the run folder as analysis.LoadRows
// reads it (summary.json, server_metrics.jsonl, GPU series), the garbage collector held to
// LoadGCPercent meanwhile.
//
// A run cut before its writer closed is recovered first (rowfile.Recover): requests.parquet
// is rebuilt from requests.journal and the returned RunInfo is marked Recovered with the
// Recovery (its String is the line to print).
func LoadDir(dir string, o analysis.Options) (*analysis.Metrics, analysis.RunInfo, error) {
	defer holdLoadGC()()
	path := filepath.Join(dir, runfolder.Requests)
	rec, err := rowfile.Recover(path)
	if err != nil {
		return nil, analysis.RunInfo{}, err
	}
	return analysis.LoadRows(dir, rec, rowfile.RowsReused(path), o)
}
