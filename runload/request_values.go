package runload

import (
	"path/filepath"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/runfolder"
)

// ReadRequestValues reads each folder's rows into its analysis.RequestValues, for
// the paired tests and the paired-difference plot of package compare and the cache study.
func ReadRequestValues(dirA, dirB string) (*analysis.RequestValues, *analysis.RequestValues, error) {
	va, vb := analysis.NewRequestValues(), analysis.NewRequestValues()
	for _, d := range []struct {
		dir string
		v   *analysis.RequestValues
	}{{dirA, va}, {dirB, vb}} {
		if err := rowfile.Read(filepath.Join(d.dir, runfolder.Requests), func(r results.Row) error {
			d.v.Add(&r)
			return nil
		}); err != nil {
			return nil, nil, err
		}
	}
	return va, vb, nil
}
