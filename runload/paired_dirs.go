package runload

import (
	"path/filepath"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/results/rowfile"
)

// PairedDirs runs analysis.PairedTests over two run folders' rows (requests.parquet): A's and
// B's per-request TTFT, e2e and TPOT, paired by request id. With no request ok in both, every
// test has N 0.
func PairedDirs(dirA, dirB string, o analysis.PairedOptions) ([]analysis.PairedTest, error) {
	va, vb, err := ReadRequestValues(dirA, dirB)
	if err != nil {
		return nil, err
	}
	return analysis.PairedTests(va, vb, o), nil
}

// ReadRequestValues reads each folder's rows into its analysis.RequestValues, for
// analysis.PairedTests and the paired-difference plot (analysis.PairedDeltaFigures).
func ReadRequestValues(dirA, dirB string) (*analysis.RequestValues, *analysis.RequestValues, error) {
	va, vb := analysis.NewRequestValues(), analysis.NewRequestValues()
	for _, d := range []struct {
		dir string
		v   *analysis.RequestValues
	}{{dirA, va}, {dirB, vb}} {
		if err := rowfile.Read(filepath.Join(d.dir, analysis.RequestsFile), func(r results.Row) error {
			d.v.Add(&r)
			return nil
		}); err != nil {
			return nil, nil, err
		}
	}
	return va, vb, nil
}
