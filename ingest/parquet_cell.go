// cell: one value of a scalar Parquet column, and its conversion into a row's field.

package ingest

import (
	"fmt"
	"strconv"

	"github.com/parquet-go/parquet-go"
)

// cell is one value of a scalar column: its Parquet kind (nullCell when null) and the value,
// in i (integers, booleans), x (floating point) or s (byte arrays).
type cell struct {
	kind parquet.Kind
	i    int64
	x    float64
	s    string
}

// nullCell is the kind of a cell that holds no value.
const nullCell = parquet.Kind(-1)

// cellOf is v as a cell.
func (s *parquetSource) cellOf(v parquet.Value) cell {
	if v.IsNull() {
		return cell{kind: nullCell}
	}
	c := cell{kind: v.Kind()}
	switch c.kind {
	case parquet.Boolean:
		if v.Boolean() {
			c.i = 1
		}
	case parquet.Int32:
		c.i = int64(v.Int32())
	case parquet.Int64:
		c.i = v.Int64()
	case parquet.Float:
		c.x = float64(v.Float())
	case parquet.Double:
		c.x = v.Double()
	case parquet.ByteArray, parquet.FixedLenByteArray:
		c.s = s.str(v.ByteArray())
	}
	return c
}

// asValue is c as a parquet.Value of column ci, for raw.
func (c cell) asValue(ci int) parquet.Value {
	var v parquet.Value
	switch c.kind {
	case parquet.Boolean:
		v = parquet.BooleanValue(c.i != 0)
	case parquet.Int32:
		v = parquet.Int32Value(int32(c.i))
	case parquet.Int64:
		v = parquet.Int64Value(c.i)
	case parquet.Float:
		v = parquet.FloatValue(float32(c.x))
	case parquet.Double:
		v = parquet.DoubleValue(c.x)
	case parquet.ByteArray, parquet.FixedLenByteArray:
		v = parquet.ByteArrayValue([]byte(c.s))
	}
	return v.Level(0, 0, ci)
}

// cellValue converts one scalar field's value into r.
func (s *parquetSource) cellValue(r *row, f int, c cell) error {
	kind := byte(kNumber)
	s.num = s.num[:0]
	switch c.kind {
	case nullCell:
		if requiredField[f] {
			return errMissing
		}
		return nil
	case parquet.Int32:
		if c.i >= 0 && s.conv.setUint(r, f, uint64(c.i)) {
			return nil
		}
		s.num = strconv.AppendInt(s.num, c.i, 10)
	case parquet.Int64:
		if f == fTimestamp && s.tsUnit > 0 {
			t := c.i
			if t > 0 && t > (1<<62)/s.tsUnit || t < 0 && t < -(1<<62)/s.tsUnit {
				return errTimeRange
			}
			r.t = t * s.tsUnit
			return nil
		}
		if c.i >= 0 && s.conv.setUint(r, f, uint64(c.i)) {
			return nil
		}
		s.num = strconv.AppendInt(s.num, c.i, 10)
	case parquet.Float:
		s.num = strconv.AppendFloat(s.num, c.x, 'f', -1, 32)
	case parquet.Double:
		s.num = strconv.AppendFloat(s.num, c.x, 'f', -1, 64)
	case parquet.ByteArray, parquet.FixedLenByteArray:
		// Models and sessions repeat: the cell's string is shared, not copied per row.
		if f == fModel {
			r.rec.Model = c.s
			return nil
		}
		if f == fSession {
			r.rec.SessionID = c.s
			return nil
		}
		kind = kString
		s.num = append(s.num, c.s...)
	case parquet.Boolean:
		kind = kBool
		s.num = strconv.AppendBool(s.num, c.i != 0)
	default:
		return fmt.Errorf("unsupported parquet type %s", c.kind)
	}
	return s.conv.set(r, f, kind, s.num)
}

// str returns b as a string that no page owns, one copy per distinct value.
func (s *parquetSource) str(b []byte) string { return s.stable.String(b) }
