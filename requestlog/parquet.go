package requestlog

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"

	"github.com/llm-replay/replay/internal/pqcheck"
)

// parquetLines reads a Parquet request log row by row, each row turned into the JSON object a
// JSONL log line would hold (columns by name, nested groups as objects, a body stored as a
// string parsed later like any other), so both forms share one parser and --map. Errors name
// the 1-based row where a JSONL log names the line.
func parquetLines(f *os.File, name string) (func() ([]byte, error), error) {
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("requestlog: %w", err)
	}
	pf, err := pqcheck.Open(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("requestlog: %s: %w", name, err)
	}
	r := parquet.NewReader(pf)
	return func() ([]byte, error) {
		row := map[string]any{}
		if err := r.Read(&row); err != nil {
			if errors.Is(err, io.EOF) {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("reading Parquet rows: %w", err)
		}
		return json.Marshal(row)
	}, nil
}
