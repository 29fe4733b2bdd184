package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/snappy"

	"github.com/llm-replay/replay/internal/intern"
	"github.com/llm-replay/replay/internal/pqcheck"
)

// SchemaVersion is stored in the Parquet key/value metadata under SchemaVersionKey so that a
// future change of the normalized schema can be detected when reading an older file.
const (
	SchemaVersion    = "1"
	SchemaVersionKey = "replay.trace.schema_version"
)

// parquetRow is the normalized trace file's row. The schema, also written down in SCHEMA.md:
//
//	message trace {
//	  required int64  timestamp_ns (DELTA_BINARY_PACKED);   // Record.Timestamp, ns from trace origin
//	  required int64  prompt_tokens;                         // Record.PromptTokens
//	  required int64  output_tokens;                         // Record.OutputTokens
//	  required group  block_hashes (LIST) {                  // Record.BlockHashes, empty list = nil
//	    repeated group list { required int64 element (INT(64,false)) (DELTA_BINARY_PACKED); }
//	  }
//	  required int64  block_size;                            // Record.BlockSize, 0 = no hashes
//	  required binary session_id (STRING) (dictionary);      // Record.SessionID, "" = none
//	  required int64  turn;                                  // Record.Turn
//	  required binary model (STRING) (dictionary);           // Record.Model, "" = unknown
//	  required binary source (STRING) (dictionary);          // Record.Source, the input file
//	  required int64  line;                                  // Record.Line, 1-based line/row there
//	}
//
// Integers are 64-bit so no Record value is ever truncated; the encodings keep them small.
// Pages are Snappy-compressed: zstd made files 2x smaller than plain but decoding it was the
// largest cost of reading a trace back.
type parquetRow struct {
	TimestampNs  int64    `parquet:"timestamp_ns,delta"`
	PromptTokens int64    `parquet:"prompt_tokens"`
	OutputTokens int64    `parquet:"output_tokens"`
	BlockHashes  []uint64 `parquet:"block_hashes,list" parquet-element:",delta"`
	BlockSize    int64    `parquet:"block_size"`
	SessionID    string   `parquet:"session_id,dict"`
	Turn         int64    `parquet:"turn"`
	Model        string   `parquet:"model,dict"`
	Source       string   `parquet:"source,dict"`
	Line         int64    `parquet:"line,delta"`
}

// rowsPerGroup bounds the writer's memory: a row group is buffered until it is flushed.
const rowsPerGroup = 128 * 1024

// maxPrealloc bounds how many rows of a group Reader allocates for before decoding: eight
// of our groups, and pyarrow's default group of 1Mi rows.
const maxPrealloc = 1 << 20

// writeBatch is how many rows the writer hands parquet-go at once.
const writeBatch = 1024

// Writer streams records into a normalized trace Parquet file.
type Writer struct {
	pw     *parquet.GenericWriter[parquetRow]
	buf    []parquetRow
	closer io.Closer
	n      int64
}

// NewWriter writes a normalized trace to w. Call Close to flush the footer.
func NewWriter(w io.Writer) *Writer {
	pw := parquet.NewGenericWriter[parquetRow](w,
		parquet.Compression(&snappy.Codec{}),
		parquet.MaxRowsPerRowGroup(rowsPerGroup),
		parquet.KeyValueMetadata(SchemaVersionKey, SchemaVersion),
	)
	return &Writer{pw: pw, buf: make([]parquetRow, 0, writeBatch)}
}

// CreateFile creates path and returns a Writer whose Close also closes the file.
func CreateFile(path string) (*Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := NewWriter(f)
	w.closer = f
	return w, nil
}

// Write appends one record.
func (w *Writer) Write(r Record) error {
	w.buf = append(w.buf, parquetRow{
		TimestampNs:  int64(r.Timestamp),
		PromptTokens: int64(r.PromptTokens),
		OutputTokens: int64(r.OutputTokens),
		BlockHashes:  r.BlockHashes,
		BlockSize:    int64(r.BlockSize),
		SessionID:    r.SessionID,
		Turn:         int64(r.Turn),
		Model:        r.Model,
		Source:       r.Source,
		Line:         r.Line,
	})
	w.n++
	if len(w.buf) == cap(w.buf) {
		return w.flushBatch()
	}
	return nil
}

// Count is the number of records written so far.
func (w *Writer) Count() int64 { return w.n }

func (w *Writer) flushBatch() error {
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.pw.Write(w.buf)
	clear(w.buf) // drop references to the callers' hash slices
	w.buf = w.buf[:0]
	if err != nil {
		return fmt.Errorf("trace: writing parquet: %w", err)
	}
	return nil
}

// Close flushes the remaining rows and the footer, and closes the file if CreateFile opened it.
func (w *Writer) Close() error {
	err := w.flushBatch()
	if cerr := w.pw.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("trace: closing parquet: %w", cerr)
	}
	if w.closer != nil {
		if cerr := w.closer.Close(); err == nil {
			err = cerr
		}
		w.closer = nil
	}
	return err
}

// Reader streams records out of a normalized trace Parquet file. It decodes one row group at
// a time column by column (parquet-go's row-by-row reconstruction of the hash lists costs
// ~10x more), so its memory is one row group's columns: about 72 bytes per row (strings are
// kept once per group, rows hold indexes) for at most rowsPerGroup rows in the files Writer
// makes, plus the slab the records' hashes are handed out from.
type Reader struct {
	name   string
	f      *parquet.File
	closer io.Closer
	cols   schemaColumns
	groups []parquet.RowGroup
	next   int // next row group to decode
	g      groupColumns
	pos    int
	row    int64 // rows handed out so far, for error locations
	total  int64
	// slab is where hash values are copied out of the decoded pages, and records get slices
	// of it: the reader only ever appends to it and starts a new one when it is full, so
	// records own their hashes without a copy per record.
	slab   []uint64
	tmp    []uint64 // a dictionary-encoded hash page's values
	intern intern.Table
	strIdx map[string]int32 // the current group's strings, by content
	err    error
}

// schemaColumns are the leaf column indexes of the normalized schema in one file.
type schemaColumns struct {
	ts, prompt, output, hashes, blockSize, session, turn, model, source, line int
	hashMaxDef                                                                int
}

// groupColumns holds one decoded row group.
type groupColumns struct {
	n                                         int
	ts, prompt, output, blockSize, turn, line []int64
	session, model, source                    []int32 // indexes into strs
	strs                                      []string
	hashes                                    []hashRef // row i's hashes
	slabs                                     [][]uint64
}

// hashRef locates one row's hashes: slabs[slab][off:off+n].
type hashRef struct{ slab, off, n int32 }

// NewReader reads a normalized trace from r (size bytes long); name is used in errors.
// It checks the schema up front, so a file that is not a normalized trace fails here.
func NewReader(r io.ReaderAt, size int64, name string) (rd *Reader, err error) {
	defer func() {
		// parquet-go may panic on corrupt input; nothing we read should crash the caller.
		if p := recover(); p != nil {
			rd, err = nil, fmt.Errorf("%s: corrupt parquet file: %v", name, p)
		}
	}()
	f, err := pqcheck.Open(r, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return FromFile(f, name)
}

// FromFile reads a normalized trace from a Parquet file already opened, by a caller that has
// checked it with pqcheck.Open (as NewReader does), so its pages are not walked twice.
func FromFile(f *parquet.File, name string) (*Reader, error) {
	cols, err := lookupColumns(f.Schema())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Reader{name: name, f: f, cols: cols, groups: f.RowGroups(), total: f.NumRows(), strIdx: map[string]int32{}}, nil
}

// lookupColumns finds the normalized columns and checks their shapes, so decoding can rely on
// them (required int64 and string columns, a list of int64 hashes).
func lookupColumns(s *parquet.Schema) (schemaColumns, error) {
	var c schemaColumns
	scalar := func(name string, kind parquet.Kind, dst *int) error {
		leaf, ok := s.Lookup(name)
		if !ok {
			return fmt.Errorf("not a normalized trace file: column %q missing", name)
		}
		if leaf.MaxRepetitionLevel != 0 || leaf.MaxDefinitionLevel != 0 || leaf.Node.Type().Kind() != kind {
			return fmt.Errorf("not a normalized trace file: column %q is not a required %s", name, kind)
		}
		*dst = leaf.ColumnIndex
		return nil
	}
	for _, x := range []struct {
		name string
		kind parquet.Kind
		dst  *int
	}{
		{"timestamp_ns", parquet.Int64, &c.ts}, {"prompt_tokens", parquet.Int64, &c.prompt},
		{"output_tokens", parquet.Int64, &c.output}, {"block_size", parquet.Int64, &c.blockSize},
		{"session_id", parquet.ByteArray, &c.session}, {"turn", parquet.Int64, &c.turn},
		{"model", parquet.ByteArray, &c.model}, {"source", parquet.ByteArray, &c.source},
		{"line", parquet.Int64, &c.line},
	} {
		if err := scalar(x.name, x.kind, x.dst); err != nil {
			return c, err
		}
	}
	leaf, ok := s.Lookup("block_hashes", "list", "element")
	if !ok || leaf.MaxRepetitionLevel != 1 || leaf.Node.Type().Kind() != parquet.Int64 {
		return c, fmt.Errorf("not a normalized trace file: column %q missing or not a list of int64", "block_hashes")
	}
	c.hashes, c.hashMaxDef = leaf.ColumnIndex, leaf.MaxDefinitionLevel
	return c, nil
}

// CheckSchema reports whether s is the normalized trace schema.
func CheckSchema(s *parquet.Schema) error {
	_, err := lookupColumns(s)
	return err
}

// IsNormalized reports whether a Parquet schema is the normalized trace schema.
func IsNormalized(s *parquet.Schema) bool { return CheckSchema(s) == nil }

// OpenFile opens a normalized trace file; Close closes it.
func OpenFile(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	r, err := NewReader(f, st.Size(), path)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// NumRows is the number of records in the file, from its footer.
func (r *Reader) NumRows() int64 { return r.total }

// Next returns the next record, or io.EOF after the last one.
func (r *Reader) Next() (Record, error) {
	for r.pos == r.g.n {
		if err := r.load(); err != nil {
			return Record{}, err
		}
	}
	g, i := &r.g, r.pos
	r.pos++
	r.row++
	rec := Record{
		Timestamp:    time.Duration(g.ts[i]),
		PromptTokens: int(g.prompt[i]),
		OutputTokens: int(g.output[i]),
		BlockSize:    int(g.blockSize[i]),
		SessionID:    g.strs[g.session[i]],
		Turn:         int(g.turn[i]),
		Model:        g.strs[g.model[i]],
		Source:       g.strs[g.source[i]],
		Line:         g.line[i],
	}
	if h := g.hashes[i]; h.n > 0 {
		end := h.off + h.n
		rec.BlockHashes = g.slabs[h.slab][h.off:end:end]
	}
	return rec, nil
}

// load decodes the next row group.
func (r *Reader) load() (err error) {
	if r.err != nil {
		return r.err
	}
	if r.next == len(r.groups) {
		if r.row < r.total {
			r.err = fmt.Errorf("%s: row %d: file ends before its %d rows", r.name, r.row+1, r.total)
			return r.err
		}
		r.err = io.EOF
		return io.EOF
	}
	gi := r.next
	r.next++
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: row group %d: corrupt parquet data: %v", r.name, gi, p)
		}
		if err != nil {
			r.err = err
		}
	}()
	rg := r.groups[gi]
	n := int(rg.NumRows())
	chunks := rg.ColumnChunks()
	g := &r.g
	g.n, r.pos = 0, 0
	// Size the buffers once per group: growing them by append costs more than decoding. The
	// row count is the footer's word, which a damaged file can inflate to billions, so past
	// maxPrealloc rows the columns grow as their values are decoded.
	pre := min(n, maxPrealloc)
	for _, col := range []*[]int64{&g.ts, &g.prompt, &g.output, &g.blockSize, &g.turn, &g.line} {
		if cap(*col) < pre {
			*col = make([]int64, 0, pre)
		}
	}
	for _, col := range []*[]int32{&g.session, &g.model, &g.source} {
		if cap(*col) < pre {
			*col = make([]int32, 0, pre)
		}
	}
	clear(g.strs)
	g.strs = g.strs[:0]
	clear(r.strIdx)
	if cap(g.hashes) < pre {
		g.hashes = make([]hashRef, 0, pre)
	}
	for _, c := range []struct {
		col int
		dst *[]int64
	}{{r.cols.ts, &g.ts}, {r.cols.prompt, &g.prompt}, {r.cols.output, &g.output}, {r.cols.blockSize, &g.blockSize}, {r.cols.turn, &g.turn}, {r.cols.line, &g.line}} {
		if *c.dst, err = readInt64s(chunks[c.col], (*c.dst)[:0]); err != nil {
			return fmt.Errorf("%s: row group %d: %w", r.name, gi, err)
		}
		if len(*c.dst) != n {
			return fmt.Errorf("%s: row group %d: column %d has %d values for %d rows", r.name, gi, c.col, len(*c.dst), n)
		}
	}
	for _, c := range []struct {
		col int
		dst *[]int32
	}{{r.cols.session, &g.session}, {r.cols.model, &g.model}, {r.cols.source, &g.source}} {
		if *c.dst, err = r.readStrings(chunks[c.col], (*c.dst)[:0]); err != nil {
			return fmt.Errorf("%s: row group %d: %w", r.name, gi, err)
		}
		if len(*c.dst) != n {
			return fmt.Errorf("%s: row group %d: column %d has %d values for %d rows", r.name, gi, c.col, len(*c.dst), n)
		}
	}
	if err := r.readHashes(chunks[r.cols.hashes]); err != nil {
		return fmt.Errorf("%s: row group %d: %w", r.name, gi, err)
	}
	if len(g.hashes) != n {
		return fmt.Errorf("%s: row group %d: block_hashes has %d rows, the group %d", r.name, gi, len(g.hashes), n)
	}
	g.n = n
	return nil
}

// eachPage calls fn for every page of a column chunk.
func eachPage(c parquet.ColumnChunk, fn func(parquet.Page) error) error {
	pages := c.Pages()
	defer pages.Close()
	for {
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		err = fn(p)
		parquet.Release(p)
		if err != nil {
			return err
		}
	}
}

func readInt64s(c parquet.ColumnChunk, dst []int64) ([]int64, error) {
	err := eachPage(c, func(p parquet.Page) error {
		if d := p.Dictionary(); d != nil {
			data := p.Data()
			for _, idx := range data.Int32() {
				if idx < 0 || int(idx) >= d.Len() {
					return fmt.Errorf("dictionary index %d out of range", idx)
				}
				dst = append(dst, d.Index(idx).Int64())
			}
			return nil
		}
		data := p.Data()
		dst = append(dst, data.Int64()...)
		return nil
	})
	return dst, err
}

// readStrings decodes a string column into indexes into g.strs, the group's distinct
// strings. The values repeat (file names, models, sessions), and columns of indexes hold no
// pointers: a []string per column made every garbage collection scan megabytes of them.
func (r *Reader) readStrings(c parquet.ColumnChunk, dst []int32) ([]int32, error) {
	var dictIdx []int32
	var lastDict parquet.Dictionary
	err := eachPage(c, func(p parquet.Page) error {
		if d := p.Dictionary(); d != nil {
			if d != lastDict {
				lastDict = d
				dictIdx = dictIdx[:0]
				for i := 0; i < d.Len(); i++ {
					dictIdx = append(dictIdx, r.strIndex(d.Index(int32(i)).ByteArray()))
				}
			}
			data := p.Data()
			for _, idx := range data.Int32() {
				if idx < 0 || int(idx) >= len(dictIdx) {
					return fmt.Errorf("dictionary index %d out of range", idx)
				}
				dst = append(dst, dictIdx[idx])
			}
			return nil
		}
		values := p.Data()
		data, offsets := values.ByteArray()
		for i := 0; i+1 < len(offsets); i++ {
			if offsets[i] > offsets[i+1] || int(offsets[i+1]) > len(data) {
				return errors.New("bad string offsets")
			}
			dst = append(dst, r.strIndex(data[offsets[i]:offsets[i+1]]))
		}
		return nil
	})
	return dst, err
}

// strIndex is b's index in the group's distinct strings, adding it when new.
func (r *Reader) strIndex(b []byte) int32 {
	if i, ok := r.strIdx[string(b)]; ok {
		return i
	}
	s := r.str(b)
	i := int32(len(r.g.strs))
	r.g.strs = append(r.g.strs, s)
	r.strIdx[s] = i
	return i
}

// str returns b as a string, sharing one copy of values seen before in the file.
func (r *Reader) str(b []byte) string { return r.intern.String(b) }

// readHashes decodes the block_hashes list column into g.hashes, copying each page's values
// once, into the slab records share: a row starts at repetition level 0, and an element is
// present at the maximum definition level.
func (r *Reader) readHashes(c parquet.ColumnChunk) error {
	g := &r.g
	g.hashes = g.hashes[:0]
	clear(g.slabs)
	g.slabs = g.slabs[:0]
	maxDef := byte(r.cols.hashMaxDef)
	return eachPage(c, func(p parquet.Page) error {
		reps, defs := p.RepetitionLevels(), p.DefinitionLevels()
		if len(reps) != len(defs) {
			return errors.New("block_hashes: repetition and definition levels differ in length")
		}
		if len(reps) == 0 {
			return nil
		}
		var vals []uint64
		data := p.Data()
		if d := p.Dictionary(); d != nil {
			r.tmp = r.tmp[:0]
			for _, idx := range data.Int32() {
				if idx < 0 || int(idx) >= d.Len() {
					return fmt.Errorf("dictionary index %d out of range", idx)
				}
				r.tmp = append(r.tmp, uint64(d.Index(idx).Int64()))
			}
			vals = r.tmp
		} else {
			vals = data.Uint64()
		}
		if len(vals) > len(reps) {
			return errors.New("block_hashes: more values than levels")
		}
		// A row whose list began on an earlier page is moved so that it stays contiguous.
		var carried []uint64
		if reps[0] != 0 {
			if len(g.hashes) == 0 {
				return errors.New("block_hashes: list continues a row that never started")
			}
			h := g.hashes[len(g.hashes)-1]
			carried = g.slabs[h.slab][h.off : h.off+h.n]
		}
		if len(carried)+len(vals) > math.MaxInt32 {
			return errors.New("block_hashes: more than 2^31 hashes in one page")
		}
		sid, base := r.room(len(carried) + len(vals))
		r.slab = append(append(r.slab, carried...), vals...)
		last := -1 // the row whose list is still open at the page's first level
		if carried != nil {
			last = len(g.hashes) - 1
			g.hashes[last] = hashRef{slab: sid, off: base, n: int32(len(carried))}
		}
		at := base + int32(len(carried)) // where the page's next value sits in the slab
		if len(vals) == len(reps) && bytes.Count(defs, []byte{maxDef}) == len(defs) {
			// Every level holds a value (no empty lists): rows start at the zero levels,
			// which IndexByte finds many bytes at a time.
			for k := 0; k < len(reps); k++ {
				z := bytes.IndexByte(reps[k:], 0)
				if z < 0 {
					break
				}
				k += z
				g.hashes = append(g.hashes, hashRef{slab: sid, off: at + int32(k)})
				if last >= 0 {
					g.hashes[last].n = at + int32(k) - g.hashes[last].off
				}
				last = len(g.hashes) - 1
			}
			g.hashes[last].n = at + int32(len(reps)) - g.hashes[last].off
			return nil
		}
		vi := 0
		for k, rl := range reps {
			if rl == 0 {
				g.hashes = append(g.hashes, hashRef{slab: sid, off: at + int32(vi)})
			}
			if defs[k] == maxDef {
				if vi >= len(vals) {
					return errors.New("block_hashes: fewer values than levels")
				}
				vi++
				g.hashes[len(g.hashes)-1].n++
			}
		}
		return nil
	})
}

// room makes space for n more values in the slab, starting a new one when it is too full,
// and returns the slab's index in this group and the offset the values will start at.
func (r *Reader) room(n int) (int32, int32) {
	g := &r.g
	if cap(r.slab)-len(r.slab) < n || len(g.slabs) == 0 {
		if cap(r.slab)-len(r.slab) < n {
			r.slab = make([]uint64, 0, max(n, slabValues))
		}
		g.slabs = append(g.slabs, r.slab[:cap(r.slab)])
	}
	return int32(len(g.slabs) - 1), int32(len(r.slab))
}

// slabValues is the size of a hash slab: large enough that allocating slabs costs little, small
// enough that a caller keeping a few records does not keep much memory alive with them.
const slabValues = 64 * 1024

// Close releases the reader and closes the file if OpenFile opened it.
func (r *Reader) Close() error {
	var err error
	if r.closer != nil {
		err = r.closer.Close()
		r.closer = nil
	}
	return err
}

// ReadAll reads every record of a normalized trace file.
func ReadAll(path string) ([]Record, error) {
	r, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out := make([]Record, 0, r.NumRows())
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
}
