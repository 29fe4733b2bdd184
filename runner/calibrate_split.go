package runner

import (
	"os"
	"path/filepath"

	"github.com/llm-replay/replay/analysis"
)

// calibrate_split.go writes a calibrated run's per-request split of TTFT into predicted prefill
// and queueing (analysis/queueing.go) beside its rows, as queueing.csv.

// writeQueueing writes dir/queueing.csv when the run had a calibration; it reports whether it
// wrote one.
func writeQueueing(dir string, m *analysis.Metrics) (bool, error) {
	reqs := m.QueueingRequests()
	if reqs == nil {
		return false, nil
	}
	return true, os.WriteFile(filepath.Join(dir, analysis.QueueingFile), analysis.QueueingCSV(reqs), 0o644)
}
