// Reader: records streamed out of a normalized trace Parquet file, one decoded row group at a
// time.

package trace

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/llm-replay/replay/internal/intern"
	"github.com/llm-replay/replay/internal/pqcheck"
)

// maxPrealloc bounds how many rows of a group Reader allocates for before decoding: eight
// of our groups, and pyarrow's default group of 1Mi rows.
const maxPrealloc = 1 << 20

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

// groupColumns holds one decoded row group.
type groupColumns struct {
	n                                         int
	ts, prompt, output, blockSize, turn, line []int64
	session, model, source                    []int32 // indexes into strs
	strs                                      []string
	hashes                                    []hashRef // row i's hashes
	slabs                                     [][]uint64
	opts, media, headers                      textColumn // the options, media and headers columns' text
}

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
	if text, ok := g.opts.row(i); ok && len(text) > 0 {
		o, err := DecodeOptions(text)
		if err != nil {
			return Record{}, fmt.Errorf("%s: row %d: column options: %w", r.name, r.row, err)
		}
		rec.Options = o
	}
	if text, ok := g.media.row(i); ok && len(text) > 0 {
		m, err := DecodeMedia(text)
		if err != nil {
			return Record{}, fmt.Errorf("%s: row %d: column media: %w", r.name, r.row, err)
		}
		rec.Media = m
	}
	if text, ok := g.headers.row(i); ok && len(text) > 0 {
		h, err := DecodeHeaders(text)
		if err != nil {
			return Record{}, fmt.Errorf("%s: row %d: column headers: %w", r.name, r.row, err)
		}
		rec.Headers = h
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
	g.reserve(n)
	clear(r.strIdx)
	if err := r.readScalars(chunks, n); err != nil {
		return fmt.Errorf("%s: row group %d: %w", r.name, gi, err)
	}
	if err := r.readHashes(chunks[r.cols.hashes]); err != nil {
		return fmt.Errorf("%s: row group %d: %w", r.name, gi, err)
	}
	if len(g.hashes) != n {
		return fmt.Errorf("%s: row group %d: block_hashes has %d rows, the group %d", r.name, gi, len(g.hashes), n)
	}
	for _, x := range []struct {
		name        string
		col, maxDef int
		t           *textColumn
	}{{"options", r.cols.options, r.cols.optionsMaxDef, &g.opts}, {"media", r.cols.media, r.cols.mediaMaxDef, &g.media},
		{"headers", r.cols.headers, r.cols.headersMaxDef, &g.headers}} {
		x.t.buf, x.t.end = x.t.buf[:0], x.t.end[:0]
		if x.col < 0 {
			continue
		}
		if err := readText(chunks[x.col], x.maxDef, x.t); err != nil {
			return fmt.Errorf("%s: row group %d: %s: %w", r.name, gi, x.name, err)
		}
		if len(x.t.end) != n {
			return fmt.Errorf("%s: row group %d: %s has %d rows, the group %d", r.name, gi, x.name, len(x.t.end), n)
		}
	}
	g.n = n
	return nil
}

// reserve empties g for a group of n rows and sizes its buffers once: growing them by append
// costs more than decoding. The row count is the footer's word, which a damaged file can
// inflate to billions, so past maxPrealloc rows the columns grow as their values are decoded.
func (g *groupColumns) reserve(n int) {
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
	if cap(g.hashes) < pre {
		g.hashes = make([]hashRef, 0, pre)
	}
}

// readScalars decodes the group's one-value-a-row columns, integers and strings, each of
// which must hold exactly n values; the hashes and options are lists and read apart.
func (r *Reader) readScalars(chunks []parquet.ColumnChunk, n int) error {
	g := &r.g
	var err error
	for _, c := range []struct {
		col int
		dst *[]int64
	}{{r.cols.ts, &g.ts}, {r.cols.prompt, &g.prompt}, {r.cols.output, &g.output}, {r.cols.blockSize, &g.blockSize}, {r.cols.turn, &g.turn}, {r.cols.line, &g.line}} {
		if *c.dst, err = readInt64s(chunks[c.col], (*c.dst)[:0]); err != nil {
			return err
		}
		if len(*c.dst) != n {
			return fmt.Errorf("column %d has %d values for %d rows", c.col, len(*c.dst), n)
		}
	}
	for _, c := range []struct {
		col int
		dst *[]int32
	}{{r.cols.session, &g.session}, {r.cols.model, &g.model}, {r.cols.source, &g.source}} {
		if *c.dst, err = r.readStrings(chunks[c.col], (*c.dst)[:0]); err != nil {
			return err
		}
		if len(*c.dst) != n {
			return fmt.Errorf("column %d has %d values for %d rows", c.col, len(*c.dst), n)
		}
	}
	return nil
}

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
