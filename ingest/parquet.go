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

	"github.com/llm-replay/replay/internal/intern"
	"github.com/llm-replay/replay/internal/pqcheck"
	"github.com/llm-replay/replay/trace"
)

// columnarParquet turns the columnar path on; tests turn it off to read the same file through
// parquet-go's row reader, the reference the columnar path is held to.
var columnarParquet = true

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

	// Columnar mode, when every mapped column is a scalar (no list): a row group's mapped
	// columns are decoded a column at a time into cells, as the normalized reader does,
	// instead of parquet-go reassembling every row and next searching it for each field (that
	// read a four-column export at ~1.8M rows/s).
	columnar  bool
	groups    []parquet.RowGroup
	nextGroup int
	cursors   [numFields]*columnCursor
	groupLeft int64             // rows of the current row group not decoded yet
	cells     [numFields][]cell // the window of rows being handed out
	hashCur   *listCursor
	fatal     error        // a column that could not be decoded
	hashWin   listWindow   // the window's block hash lists
	stable    intern.Table // byte-array values copied out of their pages
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
	var vals parquet.Row
	if !s.columnar {
		vals = s.buf[s.pos]
		s.last = vals
	}
	s.pos++
	s.idx++
	*r = row{}
	r.rec.Source = s.name
	r.rec.Line = s.idx
	for f := 0; f < numFields; f++ {
		ci := s.cols[f]
		if ci < 0 {
			continue
		}
		var err error
		if s.columnar && f == fHashes {
			err = s.listValue(r, s.pos-1)
		} else if s.columnar {
			err = s.cellValue(r, f, s.cells[f][s.pos-1])
		} else {
			err = s.field(r, f, ci, vals)
		}
		if err != nil {
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

// str returns b as a string that no page owns, one copy per distinct value.
func (s *parquetSource) str(b []byte) string { return s.stable.String(b) }

// columnWindow is how many rows the columnar path decodes from each column at a time: its
// memory is this many values per mapped column, whatever the row groups' size.
const columnWindow = 4096

// fillColumns decodes the next window of rows from every mapped column, moving to the next
// row group when this one is done.
func (s *parquetSource) fillColumns() (err error) {
	defer func() {
		if p := recover(); p != nil {
			e := s.loc.locate(s.name, s.idx)
			e.Err = fmt.Errorf("corrupt parquet data: %v", p)
			err = e
		}
	}()
	for s.groupLeft == 0 {
		s.closeCursors()
		if s.nextGroup == len(s.groups) {
			s.eof = true
			return io.EOF
		}
		g := s.groups[s.nextGroup]
		s.nextGroup++
		s.groupLeft = g.NumRows()
		chunks := g.ColumnChunks()
		for f, ci := range s.cols {
			if ci < 0 {
				continue
			}
			if f == fHashes {
				if s.hashCur == nil {
					s.hashCur = &listCursor{maxDef: s.maxDef[f]}
				}
				s.hashCur.start(chunks[ci].Pages())
				continue
			}
			c := s.cursors[f]
			if c == nil { // kept between row groups, with its buffers
				c = &columnCursor{maxDef: s.maxDef[f], src: s}
				s.cursors[f] = c
			}
			c.start(chunks[ci].Pages())
		}
	}
	n := int(min(s.groupLeft, columnWindow))
	// windowErr reports a column f that failed, or gave got rows of the window's n.
	windowErr := func(f, got int, err error) error {
		if err == nil && got != n {
			err = fmt.Errorf("column %d ends %d rows before its row group", s.cols[f], s.groupLeft-int64(got))
		}
		if err != nil {
			e := s.loc.locate(s.name, s.idx)
			e.Field, e.Err = s.m.describe(f), err
			return e
		}
		return nil
	}
	if s.hashCur != nil { // only made when block hashes are mapped
		err := s.hashCur.read(&s.hashWin, n)
		if err := windowErr(fHashes, s.hashWin.rows(), err); err != nil {
			return err
		}
	}
	for f, c := range s.cursors {
		if c == nil {
			continue
		}
		vals, err := c.read(s.cells[f][:0], n)
		s.cells[f] = vals
		if err := windowErr(f, len(vals), err); err != nil {
			return err
		}
	}
	s.groupLeft -= int64(n)
	s.n, s.pos = n, 0
	return nil
}

// closeCursors ends the current row group's column reads.
func (s *parquetSource) closeCursors() {
	for _, c := range s.cursors {
		if c != nil {
			c.close()
		}
	}
	if s.hashCur != nil {
		s.hashCur.close()
	}
}

// listValue sets row i of the window's block hashes. An int32 list with a negative element
// is spelled out and handed to the converter, which refuses it as the row reader's path does.
func (s *parquetSource) listValue(r *row, i int) error {
	w := &s.hashWin
	vals := w.vals[w.off[i]:w.off[i+1]]
	if w.int32 {
		for _, v := range vals {
			if int32(v) < 0 {
				s.hashes = append(s.hashes[:0], '[')
				for k, v := range vals {
					if k > 0 {
						s.hashes = append(s.hashes, ',')
					}
					s.hashes = strconv.AppendInt(s.hashes, int64(int32(v)), 10)
				}
				s.hashes = append(s.hashes, ']')
				return s.conv.set(r, fHashes, kArray, s.hashes)
			}
		}
	}
	r.rec.BlockHashes = s.conv.carve(vals)
	r.hasHashes = true
	return nil
}

// listWindow holds a window's lists: row i's values are vals[off[i]:off[i+1]] (an int32
// column's values as their bits, int32 set).
type listWindow struct {
	vals  []uint64
	off   []int
	int32 bool
}

func (w *listWindow) rows() int { return max(len(w.off)-1, 0) }

// listCursor reads a list column chunk of integers a window of rows at a time. A row starts at
// repetition level 0, an element is present at the maximum definition level (below it the
// list is empty or null), and a row may go on into the next page.
type listCursor struct {
	pages  parquet.Pages
	maxDef int
	vals   []uint64 // values of the rows not handed out yet
	starts []int    // where each of those rows starts in vals
	done   bool     // the chunk has no more pages: the last row is complete
	int32  bool
	tmp    []uint64
}

// start begins reading a row group's column chunk.
func (c *listCursor) start(pages parquet.Pages) {
	c.pages, c.vals, c.starts, c.done = pages, c.vals[:0], c.starts[:0], false
}

// close releases the column chunk's pages.
func (c *listCursor) close() {
	if c.pages != nil {
		c.pages.Close()
		c.pages = nil
	}
}

// read puts the next n rows (fewer at the chunk's end) into w.
func (c *listCursor) read(w *listWindow, n int) error {
	// A row is complete once the next one has started, or the chunk has ended.
	for !c.done && len(c.starts) <= n {
		p, err := c.pages.ReadPage()
		if errors.Is(err, io.EOF) {
			c.done = true
			break
		}
		if err != nil {
			return err
		}
		err = c.decode(p)
		parquet.Release(p)
		if err != nil {
			return err
		}
	}
	// Unless the chunk is done, the loop stopped with n+1 rows started: the first n are whole.
	k := min(n, len(c.starts))
	w.int32 = c.int32
	w.off = w.off[:0]
	if k <= 0 {
		w.vals = w.vals[:0]
		return nil
	}
	end := len(c.vals)
	if k < len(c.starts) {
		end = c.starts[k]
	}
	w.vals = append(w.vals[:0], c.vals[:end]...)
	w.off = append(w.off, c.starts[:k]...)
	w.off = append(w.off, end)
	// Keep the rows not handed out, from the front.
	c.vals = c.vals[:copy(c.vals, c.vals[end:])]
	rest := c.starts[k:]
	for i := range rest {
		rest[i] -= end
	}
	c.starts = c.starts[:copy(c.starts, rest)]
	return nil
}

// decode appends a page's rows and values.
func (c *listCursor) decode(p parquet.Page) error {
	reps, defs := p.RepetitionLevels(), p.DefinitionLevels()
	if len(reps) != len(defs) {
		return errors.New("repetition and definition levels differ in length")
	}
	data := p.Data()
	var vals []uint64
	if d := p.Dictionary(); d != nil {
		c.tmp = c.tmp[:0]
		for _, idx := range data.Int32() {
			if idx < 0 || int(idx) >= d.Len() {
				return fmt.Errorf("dictionary index %d out of range", idx)
			}
			v := d.Index(idx)
			if v.Kind() == parquet.Int32 {
				c.tmp = append(c.tmp, uint64(uint32(v.Int32())))
			} else {
				c.tmp = append(c.tmp, uint64(v.Int64()))
			}
		}
		vals = c.tmp
	} else if p.Type().Kind() == parquet.Int32 {
		c.tmp = c.tmp[:0]
		for _, v := range data.Int32() {
			c.tmp = append(c.tmp, uint64(uint32(v)))
		}
		vals = c.tmp
	} else {
		vals = data.Uint64()
	}
	c.int32 = p.Type().Kind() == parquet.Int32
	if len(reps) > 0 && reps[0] != 0 && len(c.starts) == 0 {
		return errors.New("a list goes on from a row that never started")
	}
	vi := 0
	maxDef := byte(c.maxDef)
	for k, rl := range reps {
		if rl == 0 {
			c.starts = append(c.starts, len(c.vals))
		}
		if defs[k] == maxDef {
			if vi >= len(vals) {
				return errors.New("fewer values than levels")
			}
			c.vals = append(c.vals, vals[vi])
			vi++
		}
	}
	if vi != len(vals) {
		return errors.New("more values than levels")
	}
	return nil
}

// columnCursor reads one scalar column chunk a window of values at a time, across its pages.
// Each page is decoded once, from its typed values and definition levels, into cells.
type columnCursor struct {
	pages    parquet.Pages
	maxDef   int
	src      *parquetSource // for the shared copies of byte arrays (str)
	page     []cell         // the current page's values
	pos      int            // next of them
	dict     parquet.Dictionary
	dictVals []cell // dict's entries as cells
	tmp      []parquet.Value
}

// read appends n cells (fewer at the chunk's end) to dst.
func (c *columnCursor) read(dst []cell, n int) ([]cell, error) {
	if cap(dst) < n {
		dst = make([]cell, 0, n)
	}
	for len(dst) < n {
		if c.pos == len(c.page) {
			p, err := c.pages.ReadPage()
			if errors.Is(err, io.EOF) {
				return dst, nil
			}
			if err != nil {
				return dst, err
			}
			err = c.decode(p)
			parquet.Release(p)
			if err != nil {
				return dst, err
			}
			continue
		}
		k := min(n-len(dst), len(c.page)-c.pos)
		dst = append(dst, c.page[c.pos:c.pos+k]...)
		c.pos += k
	}
	return dst, nil
}

// decode turns a page into cells: a row whose definition level is below the column's maximum
// is null, and the others take the page's values in order.
func (c *columnCursor) decode(p parquet.Page) error {
	n := int(p.NumValues())
	defs := p.DefinitionLevels()
	if len(defs) != 0 && len(defs) != n {
		return fmt.Errorf("a page has %d definition levels for %d values", len(defs), n)
	}
	if cap(c.page) < n {
		c.page = make([]cell, n)
	}
	c.page, c.pos = c.page[:n], 0
	kind := p.Type().Kind()
	data := p.Data()
	vi := 0 // next present value
	// next reports whether row k holds a value, and that the page has one for it.
	next := func(k, have int) (bool, error) {
		if len(defs) != 0 && int(defs[k]) < c.maxDef {
			c.page[k] = cell{kind: nullCell}
			return false, nil
		}
		if vi >= have {
			return false, fmt.Errorf("a page has %d values for more present rows", have)
		}
		return true, nil
	}
	if d := p.Dictionary(); d != nil {
		if d != c.dict {
			c.dict, c.dictVals = d, c.dictVals[:0]
			for i := range d.Len() {
				c.dictVals = append(c.dictVals, c.src.cellOf(d.Index(int32(i))))
			}
		}
		idx := data.Int32()
		for k := range n {
			ok, err := next(k, len(idx))
			if err != nil {
				return err
			}
			if ok {
				j := idx[vi]
				if j < 0 || int(j) >= len(c.dictVals) {
					return fmt.Errorf("dictionary index %d out of range", j)
				}
				c.page[k] = c.dictVals[j]
				vi++
			}
		}
		return nil
	}
	// One loop per kind, written out: sharing one through a function per value made the
	// export in BenchmarkIngest1M read ~30% slower.
	switch kind {
	case parquet.Int64:
		vals := data.Int64()
		for k := range n {
			ok, err := next(k, len(vals))
			if err != nil {
				return err
			}
			if ok {
				c.page[k] = cell{kind: kind, i: vals[vi]}
				vi++
			}
		}
	case parquet.Int32:
		vals := data.Int32()
		for k := range n {
			ok, err := next(k, len(vals))
			if err != nil {
				return err
			}
			if ok {
				c.page[k] = cell{kind: kind, i: int64(vals[vi])}
				vi++
			}
		}
	case parquet.Double:
		vals := data.Double()
		for k := range n {
			ok, err := next(k, len(vals))
			if err != nil {
				return err
			}
			if ok {
				c.page[k] = cell{kind: kind, x: vals[vi]}
				vi++
			}
		}
	case parquet.ByteArray:
		b, offs := data.ByteArray()
		have := max(len(offs)-1, 0)
		for k := range n {
			ok, err := next(k, have)
			if err != nil {
				return err
			}
			if ok {
				lo, hi := offs[vi], offs[vi+1]
				if lo > hi || int(hi) > len(b) {
					return errors.New("bad byte array offsets")
				}
				c.page[k] = cell{kind: kind, s: c.src.str(b[lo:hi])}
				vi++
			}
		}
	default: // booleans, floats, fixed-length arrays and the rest, through parquet-go's values
		if cap(c.tmp) < n {
			c.tmp = make([]parquet.Value, n)
		}
		got, err := p.Values().ReadValues(c.tmp[:n])
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if got != n {
			return fmt.Errorf("a page has %d values for %d rows", got, n)
		}
		for k, v := range c.tmp[:n] {
			c.page[k] = c.src.cellOf(v)
		}
		clear(c.tmp[:n]) // they may point into the page
	}
	return nil
}

// start begins reading a row group's column chunk.
func (c *columnCursor) start(pages parquet.Pages) {
	c.pages, c.page, c.pos, c.dict = pages, c.page[:0], 0, nil
}

// close releases the column chunk's pages.
func (c *columnCursor) close() {
	if c.pages != nil {
		c.pages.Close()
		c.pages = nil
	}
}

func (s *parquetSource) fill() (err error) {
	if s.columnar {
		if s.fatal != nil {
			return s.fatal
		}
		err := s.fillColumns()
		if err != nil && !errors.Is(err, io.EOF) {
			// A column that cannot be decoded ends the read, even under --on-error skip: the
			// columns of later rows no longer line up. The error keeps its location but is
			// not a row's, which the reader would skip and ask again.
			s.fatal = errors.New(err.Error())
			return s.fatal
		}
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			e := s.loc.locate(s.name, s.idx)
			e.Err = fmt.Errorf("corrupt parquet data: %v", p)
			err = e
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
	s.closeCursors()
	var err error
	if s.pr != nil {
		err = s.pr.Close()
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}
