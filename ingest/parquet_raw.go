// raw: a rejected Parquet row's mapped columns rendered as JSON for the quarantine.

package ingest

import (
	"encoding/json"

	"github.com/parquet-go/parquet-go"
)

// raw renders the last row's mapped columns as a JSON object for the quarantine; it is only
// called for rejected rows, so good rows pay nothing for it.
func (s *parquetSource) raw() []byte {
	out := append(s.rawOut[:0], '{')
	for f, ci := range s.cols {
		if ci < 0 {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		k, _ := json.Marshal(s.m[f])
		out = append(append(out, k...), ':')
		var vals []any
		for _, v := range s.fieldValues(f, ci) {
			if v.Column() != ci || v.IsNull() {
				continue
			}
			switch v.Kind() {
			case parquet.Int32:
				vals = append(vals, v.Int32())
			case parquet.Int64:
				vals = append(vals, v.Int64())
			case parquet.Float:
				vals = append(vals, v.Float())
			case parquet.Double:
				vals = append(vals, v.Double())
			case parquet.Boolean:
				vals = append(vals, v.Boolean())
			default:
				vals = append(vals, string(v.ByteArray()))
			}
		}
		var j []byte
		switch {
		case f == fHashes:
			if vals == nil {
				vals = []any{}
			}
			j, _ = json.Marshal(vals)
		case len(vals) == 0:
			j = []byte("null")
		default:
			j, _ = json.Marshal(vals[0])
		}
		out = append(out, j...)
	}
	s.rawOut = append(out, '}')
	return s.rawOut
}

// fieldValues are the last row's values of field f (column ci), for raw.
func (s *parquetSource) fieldValues(f, ci int) []parquet.Value {
	if !s.columnar {
		return s.last
	}
	if f == fHashes {
		w := &s.hashWin
		if s.pos == 0 || s.pos > w.rows() {
			return nil
		}
		var vals []parquet.Value
		for _, v := range w.vals[w.off[s.pos-1]:w.off[s.pos]] {
			if w.int32 {
				vals = append(vals, parquet.Int32Value(int32(v)).Level(0, 0, ci))
			} else {
				vals = append(vals, parquet.Int64Value(int64(v)).Level(0, 0, ci))
			}
		}
		return vals
	}
	if s.pos == 0 || s.pos > len(s.cells[f]) {
		return nil
	}
	c := s.cells[f][s.pos-1]
	if c.kind == nullCell {
		return nil
	}
	return []parquet.Value{c.asValue(ci)}
}
