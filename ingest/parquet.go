// Opening a Parquet input: a normalized trace file goes to normalizedSource, any other
// schema to parquetSource, through the mapping, columnar when every mapped column allows it.

package ingest

import (
	"fmt"
	"os"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/llm-replay/replay/internal/pqcheck"
	"github.com/llm-replay/replay/trace"
)

// columnarParquet turns the columnar path on; tests turn it off to read the same file through
// parquet-go's row reader, the reference the columnar path is held to.
var columnarParquet = true

// openParquet opens a Parquet trace: a normalized trace file (our own schema) is read as is,
// any other schema through the mapping.
func openParquet(f *os.File, size int64, name string, m mapping, explicit map[string]string, unitNs int64) (src source, err error) {
	defer func() {
		if p := recover(); p != nil {
			src, err = nil, fmt.Errorf("%s: corrupt parquet file: %v", name, p)
		}
	}()
	pf, err := pqcheck.Open(f, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	loc := newRowLocator(pf)
	if trace.IsNormalized(pf.Schema()) && len(explicit) == 0 {
		tr, err := trace.FromFile(pf, name)
		if err != nil {
			return nil, err
		}
		return &normalizedSource{name: name, tr: tr, f: f, loc: loc}, nil
	}
	s := &parquetSource{name: name, f: f, loc: loc, conv: converter{unitNs: unitNs}, m: m}
	for i := range s.cols {
		s.cols[i] = -1
	}
	schema := pf.Schema()
	repeated := false
	for fi, col := range m {
		if col == "" {
			continue
		}
		parts, err := SplitPath(col)
		if err != nil {
			return nil, &RowError{File: name, Row: -1, Err: fmt.Errorf("--map: field %s: %w", Fields[fi], err)}
		}
		leaf, ok := schema.Lookup(parts...)
		if !ok && fi == fHashes {
			leaf, ok = schema.Lookup(append(parts, "list", "element")...)
		}
		_, userMapped := explicit[Fields[fi]]
		if !ok {
			if requiredField[fi] || userMapped {
				return nil, &RowError{File: name, Row: -1, Err: noColumn(Fields[fi], col, userMapped, leafPaths(schema))}
			}
			continue
		}
		s.cols[fi] = leaf.ColumnIndex
		s.maxDef[fi] = leaf.MaxDefinitionLevel
		// The columnar path reads scalars, and block hashes as a list of integers.
		kind := leaf.Node.Type().Kind()
		if fi == fHashes {
			if leaf.MaxRepetitionLevel != 1 || kind != parquet.Int64 && kind != parquet.Int32 {
				repeated = true
			}
		} else if leaf.MaxRepetitionLevel > 0 {
			repeated = true
		}
		if lt := leaf.Node.Type().LogicalType(); fi == fTimestamp && lt != nil {
			if ts, ok := lt.Value.(*format.TimestampType); ok && ts.Unit.Value != nil {
				s.tsUnit = int64(ts.Unit.Value.Duration())
			}
		}
	}
	if !repeated && columnarParquet {
		s.columnar, s.groups = true, pf.RowGroups()
		return s, nil
	}
	s.pr = parquet.NewGenericReader[any](pf)
	s.buf = make([]parquet.Row, parquetRowsPerRead)
	return s, nil
}

// leafPaths are the schema's columns as --map writes them (dotted paths), for a message.
func leafPaths(schema *parquet.Schema) []string {
	var out []string
	for _, path := range schema.Columns() {
		out = append(out, strings.Join(path, "."))
	}
	return out
}
