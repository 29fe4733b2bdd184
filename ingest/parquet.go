package ingest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/llm-replay/replay/trace"
)

// parquetRowsPerRead is how many rows a Parquet source decodes at once.
const parquetRowsPerRead = 512

// rowLocator turns a file-wide row index into row group and row-in-group, for errors.
type rowLocator struct{ groupStarts []int64 }

func newRowLocator(f *parquet.File) rowLocator {
	var l rowLocator
	var n int64
	for _, g := range f.RowGroups() {
		l.groupStarts = append(l.groupStarts, n)
		n += g.NumRows()
	}
	return l
}

func (l rowLocator) locate(name string, idx int64) *RowError {
	g := 0
	for i, s := range l.groupStarts {
		if idx >= s {
			g = i
		}
	}
	var start int64
	if len(l.groupStarts) > 0 {
		start = l.groupStarts[g]
	}
	return &RowError{File: name, RowGroup: g, Row: idx - start}
}

// openParquet opens a Parquet trace: a normalized trace file (our own schema) is read as is,
// any other schema through the mapping.
func openParquet(f *os.File, size int64, name string, m mapping, explicit map[string]string, unitNs int64) (src source, err error) {
	defer func() {
		if p := recover(); p != nil {
			src, err = nil, fmt.Errorf("%s: corrupt parquet file: %v", name, p)
		}
	}()
	pf, err := parquet.OpenFile(f, size)
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable parquet file (truncated?): %w", name, err)
	}
	loc := newRowLocator(pf)
	if trace.IsNormalized(pf.Schema()) && len(explicit) == 0 {
		tr, err := trace.NewReader(f, size, name)
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
	for fi, col := range m {
		if col == "" {
			continue
		}
		parts := strings.Split(col, ".")
		leaf, ok := schema.Lookup(parts...)
		if !ok && fi == fHashes {
			leaf, ok = schema.Lookup(append(parts, "list", "element")...)
		}
		_, userMapped := explicit[Fields[fi]]
		if !ok {
			if requiredField[fi] || userMapped {
				return nil, &RowError{File: name, Row: -1, Err: fmt.Errorf("column %q (for field %s) not in the schema", col, Fields[fi])}
			}
			continue
		}
		s.cols[fi] = leaf.ColumnIndex
		s.maxDef[fi] = leaf.MaxDefinitionLevel
		if lt := leaf.Node.Type().LogicalType(); fi == fTimestamp && lt != nil {
			if ts, ok := lt.Value.(*format.TimestampType); ok && ts.Unit.Value != nil {
				s.tsUnit = int64(ts.Unit.Value.Duration())
			}
		}
	}
	s.pr = parquet.NewGenericReader[any](pf)
	s.buf = make([]parquet.Row, parquetRowsPerRead)
	return s, nil
}

// normalizedSource reads our own trace files back, keeping each record's stored source and line.
type normalizedSource struct {
	name string
	tr   *trace.Reader
	f    *os.File
	loc  rowLocator
	idx  int64
	// last is the row handed out last, for raw (only rejected rows need it, so it is not
	// copied), and lastBlockSize its stored block size, which validation may fill in.
	last          *row
	lastBlockSize int
}

func (s *normalizedSource) next(r *row) error {
	rec, err := s.tr.Next()
	if err != nil {
		return err
	}
	s.idx++
	s.last, s.lastBlockSize = r, rec.BlockSize
	*r = row{t: int64(rec.Timestamp), rec: rec, hasHashes: rec.BlockHashes != nil}
	return nil
}

func (s *normalizedSource) raw() []byte {
	var rec trace.Record
	if s.last != nil {
		rec = s.last.rec
		rec.BlockSize = s.lastBlockSize
	}
	b, _ := json.Marshal(rec)
	return b
}

func (s *normalizedSource) where() *RowError { return s.loc.locate(s.name, s.idx-1) }

func (s *normalizedSource) close() error {
	err := s.tr.Close()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// parquetSource reads any Parquet file through the mapping, one leaf column per field (a
// list column for block_hashes).
type parquetSource struct {
	name   string
	f      *os.File
	pr     *parquet.GenericReader[any]
	loc    rowLocator
	conv   converter
	m      mapping
	cols   [numFields]int
	maxDef [numFields]int
	tsUnit int64 // ns per unit of a TIMESTAMP-typed time column; 0 otherwise
	buf    []parquet.Row
	n, pos int
	idx    int64 // file-wide index of the last row handed out
	num    []byte
	hashes []byte
	rawOut []byte
	last   parquet.Row // the row last handed out, for raw
	eof    bool
}

func (s *parquetSource) next(r *row) (err error) {
	if s.pos == s.n {
		if s.eof {
			return io.EOF
		}
		if err := s.fill(); err != nil {
			return err
		}
	}
	vals := s.buf[s.pos]
	s.pos++
	s.idx++
	*r = row{}
	r.rec.Source = s.name
	r.rec.Line = s.idx
	s.last = vals
	for f := 0; f < numFields; f++ {
		ci := s.cols[f]
		if ci < 0 {
			continue
		}
		if err := s.field(r, f, ci, vals); err != nil {
			e := s.where()
			e.Field, e.Err = s.m.describe(f), err
			return e
		}
	}
	return nil
}

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
	if !found || v.IsNull() {
		if requiredField[f] {
			return errMissing
		}
		return nil
	}
	kind := byte(kNumber)
	s.num = s.num[:0]
	switch v.Kind() {
	case parquet.Int32:
		s.num = strconv.AppendInt(s.num, int64(v.Int32()), 10)
	case parquet.Int64:
		if f == fTimestamp && s.tsUnit > 0 {
			t := v.Int64()
			if t > 0 && t > (1<<62)/s.tsUnit || t < 0 && t < -(1<<62)/s.tsUnit {
				return errTimeRange
			}
			r.t = t * s.tsUnit
			return nil
		}
		s.num = strconv.AppendInt(s.num, v.Int64(), 10)
	case parquet.Float:
		s.num = strconv.AppendFloat(s.num, float64(v.Float()), 'f', -1, 32)
	case parquet.Double:
		s.num = strconv.AppendFloat(s.num, v.Double(), 'f', -1, 64)
	case parquet.ByteArray, parquet.FixedLenByteArray:
		kind = kString
		s.num = append(s.num, v.ByteArray()...)
	case parquet.Boolean:
		kind = kBool
		s.num = strconv.AppendBool(s.num, v.Boolean())
	default:
		return fmt.Errorf("unsupported parquet type %s", v.Kind())
	}
	return s.conv.set(r, f, kind, s.num)
}

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
		for _, v := range s.last {
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

func (s *parquetSource) fill() (err error) {
	defer func() {
		if p := recover(); p != nil {
			e := s.loc.locate(s.name, s.idx)
			e.Err = fmt.Errorf("corrupt parquet data: %v", p)
			err = fmt.Errorf("%w", e)
		}
	}()
	n, err := s.pr.ReadRows(s.buf)
	s.n, s.pos = n, 0
	if errors.Is(err, io.EOF) {
		s.eof = true
		err = nil
	}
	if err != nil {
		e := s.loc.locate(s.name, s.idx)
		e.Err = err
		return e
	}
	if n == 0 {
		s.eof = true
		return io.EOF
	}
	return nil
}

func (s *parquetSource) where() *RowError { return s.loc.locate(s.name, s.idx-1) }

func (s *parquetSource) close() error {
	err := s.pr.Close()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}
