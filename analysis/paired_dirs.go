package analysis

import (
	"path/filepath"

	"github.com/llm-replay/replay/results"
)

// PairedDirs runs PairedTests over two run folders' rows (requests.parquet): A's and B's
// per-request TTFT, e2e and TPOT, paired by request id. With no request ok in both, every
// test has N 0.
func PairedDirs(dirA, dirB string, o PairedOptions) ([]PairedTest, error) {
	va, vb, err := ReadRequestValues(dirA, dirB)
	if err != nil {
		return nil, err
	}
	return PairedTests(va, vb, o), nil
}

// ReadRequestValues reads each folder's rows into its RequestValues, for PairedTests and the
// paired-difference plot (PairedDeltaFigures).
func ReadRequestValues(dirA, dirB string) (*RequestValues, *RequestValues, error) {
	va, vb := NewRequestValues(), NewRequestValues()
	for _, d := range []struct {
		dir string
		v   *RequestValues
	}{{dirA, va}, {dirB, vb}} {
		if err := results.Read(filepath.Join(d.dir, RequestsFile), func(r results.Row) error {
			d.v.Add(&r)
			return nil
		}); err != nil {
			return nil, nil, err
		}
	}
	return va, vb, nil
}
