// The row-reader path: parquet-go reassembles rows and each mapped field is found in them.

package ingest

import (
	"fmt"
	"strconv"

	"github.com/parquet-go/parquet-go"
)

// parquetRowsPerRead is how many rows a Parquet source decodes at once.
const parquetRowsPerRead = 512

// field converts one mapped column of a row.
func (s *parquetSource) field(r *row, f, ci int, vals parquet.Row) error {
	if f == fHashes {
		s.hashes = append(s.hashes[:0], '[')
		for _, v := range vals {
			if v.Column() != ci || v.DefinitionLevel() < s.maxDef[f] || v.IsNull() {
				continue
			}
			if len(s.hashes) > 1 {
				s.hashes = append(s.hashes, ',')
			}
			switch v.Kind() {
			case parquet.Int32:
				s.hashes = strconv.AppendInt(s.hashes, int64(v.Int32()), 10)
			case parquet.Int64:
				if v.Int64() < 0 { // an unsigned column stores the bits of a uint64
					s.hashes = strconv.AppendUint(s.hashes, uint64(v.Int64()), 10)
				} else {
					s.hashes = strconv.AppendInt(s.hashes, v.Int64(), 10)
				}
			default:
				return fmt.Errorf("want integer hashes, got %s", v.Kind())
			}
		}
		s.hashes = append(s.hashes, ']')
		return s.conv.set(r, f, kArray, s.hashes)
	}
	var v parquet.Value
	found := false
	for _, x := range vals {
		if x.Column() == ci {
			v, found = x, true
			break
		}
	}
	return s.value(r, f, v, found)
}

// value converts one scalar field's value (found false: the row has none).
func (s *parquetSource) value(r *row, f int, v parquet.Value, found bool) error {
	c := cell{kind: nullCell}
	if found {
		c = s.cellOf(v)
	}
	return s.cellValue(r, f, c)
}
