package ingest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"slices"
	"strings"
	"unsafe"

	"github.com/llm-replay/replay/trace"
)

// Reader yields a trace's records in time order. Next returns io.EOF after the last record;
// with OnError "fail" the first bad row's *RowError ends the stream (Next keeps returning it).
// Records own their memory (hash slices are never reused by the reader). Close releases the
// file and the quarantine. A Reader is not safe for concurrent use.
type Reader interface {
	Next() (trace.Record, error)
	// Counts reports the rows accepted and rejected so far (final after io.EOF).
	Counts() Counts
	Close() error
}

// Counts is what a Reader did with the rows it saw.
type Counts struct {
	Records  int64 `json:"records"`
	Rejected int64 `json:"rejected"`
	// HashMismatches counts rows kept under HashCheck "warn" whose hash count is not
	// ceil(prompt_tokens/block_size).
	HashMismatches int64 `json:"hash_mismatches,omitempty"`
	// Skipped counts records that are no model request (a gateway's MCP or tool calls, its
	// health checks), left out without being bad rows.
	Skipped int64 `json:"skipped,omitempty"`
	// CachedUnplaced counts records whose logged cached tokens no earlier record of their
	// session was long enough to share (CachedPrefixes): a cache warmed before the log began,
	// which a replay of the log alone cannot reproduce.
	CachedUnplaced int64 `json:"cached_unplaced,omitempty"`
	// OutputUnknown counts records whose log holds no output count (vLLM's server log
	// without --enable-log-outputs): their OutputTokens are 0 for want of one.
	OutputUnknown int64 `json:"output_unknown,omitempty"`
	// Images counts the images the records carry (trace.Record.Media: a gateway log's bodies).
	Images int64 `json:"images,omitempty"`
	// ImageRules counts a request log's images by the rule that counted them as logged (the
	// logged model's; "(the served model's own)" marks one taken for want of a family name).
	ImageRules map[string]int64 `json:"image_rules,omitempty"`
	// ImagesSizeInferred counts the images logged by URL alone whose size was told from the
	// prompt tokens their line's text does not explain (trace.MediaPart.SizeInferred).
	ImagesSizeInferred int64 `json:"images_size_inferred,omitempty"`
	// Files holds each file's own counts when several files were read as one log
	// (Options.Files), in path order.
	Files []FileCounts `json:"-"`
	// MostFilesOpen is the most of those files the merge held open at once: what its memory
	// grows with (one or two for consecutive minutes; all of them for replicas of one day).
	MostFilesOpen int `json:"-"`
	// Sorted is true when the input was out of order and the records were sorted (Options.Sort).
	Sorted bool `json:"sorted,omitempty"`
	// Errors holds the first maxKeptErrors rejection messages, for the user.
	Errors []string `json:"-"`
}

const maxKeptErrors = 10

// All adapts a Reader to a range-over-func loop; it stops after the first error.
func All(r Reader) iter.Seq2[trace.Record, error] {
	return func(yield func(trace.Record, error) bool) {
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if !yield(rec, err) || err != nil {
				return
			}
		}
	}
}

// ReadAll reads a whole trace into memory (fine for tests, stats and traces that fit).
func ReadAll(path string, opts Options) ([]trace.Record, Counts, error) {
	r, err := Open(path, opts)
	if err != nil {
		return nil, Counts{}, err
	}
	defer r.Close()
	var out []trace.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, r.Counts(), nil
		}
		if err != nil {
			return out, r.Counts(), err
		}
		out = append(out, rec)
	}
}

// Open opens a trace file for reading with opts (see Options for the defaults). It is the one
// entry point for every format: a format this package does not parse itself (openai-log) goes
// to the reader registered for it (see Register).
//
// path may also be a folder or a glob (Resolve), and Options.Files a list of files: several
// files are read as one log, merged in time order (fileset.go).
func Open(path string, opts Options) (Reader, error) {
	if len(opts.Files) == 0 && !isFile(path) {
		in, err := Resolve([]string{path})
		if err != nil {
			return nil, err
		}
		opts.Files = in.Files
	}
	if len(opts.Files) == 1 {
		path, opts.Files = opts.Files[0], nil
	}
	if len(opts.Files) > 0 {
		if _, err := opts.normalized(); err != nil {
			return nil, err
		}
		return openSet(opts)
	}
	return openOne(path, opts)
}

// isFile reports whether path names something other than a folder (or nothing at all, which
// opening it then says).
func isFile(path string) bool {
	st, err := os.Stat(path)
	return (err == nil && !st.IsDir()) || (err != nil && !strings.ContainsAny(path, `*?[`))
}

// openOne opens one file of a trace.
func openOne(path string, opts Options) (Reader, error) {
	o, err := opts.normalized()
	if err != nil {
		return nil, err
	}
	format := o.Format
	if format == FormatAuto {
		if format, err = detectFile(path); err != nil {
			return nil, err
		}
	}
	if _, own := presets[format]; !own {
		open, err := registered(path, format)
		if err != nil {
			return nil, err
		}
		o.Format = format
		return open(path, o)
	}
	if err := checkMap(o.Map); err != nil {
		return nil, err
	}
	r, err := openOwn(path, o, format)
	if err != nil || o.Map[Fields[fCached]] == "" || o.PartOfSet {
		return r, err
	}
	return &cachedPrefixReader{Reader: r}, nil
}

// FileFormat is the format Open reads path as: format itself, or for auto (or "") the one
// detected from the file's first bytes.
func FileFormat(path, format string) (string, error) {
	o, err := Options{Format: format}.normalized()
	if err != nil || o.Format != FormatAuto {
		return o.Format, err
	}
	if !isFile(path) { // a folder or glob: its first file's
		in, err := Resolve([]string{path})
		if err != nil {
			return "", err
		}
		path = in.Files[0]
	}
	return detectFile(path)
}

// openOwn opens a trace in one of the formats this package parses (those with a preset).
func openOwn(path string, o Options, format string) (Reader, error) {
	p := presets[format]
	blockSize := o.BlockSize
	if blockSize == 0 {
		blockSize = p.blockSize
	}
	unit := o.TimeUnit
	if unit == "" {
		unit = p.timeUnit
	}
	unitNs, err := unitNanos(unit)
	if err != nil {
		return nil, err
	}
	m := p.mapping.with(o.Map)
	openSrc := func() (source, error) { return openSource(path, p.kind, m, o.Map, unitNs) }

	r := &reader{opts: o, name: path, blockSize: blockSize, format: format, explicitFormat: o.Format != FormatAuto}
	if o.Sort {
		inOrder, err := checkOrder(openSrc)
		if err != nil {
			return nil, r.hint(err)
		}
		r.sortAll = !inOrder
	}
	if r.src, err = openSrc(); err != nil {
		return nil, r.hint(err)
	}
	switch {
	case o.QuarantinePath != "":
		f, err := os.Create(o.QuarantinePath)
		if err != nil {
			r.src.close()
			return nil, fmt.Errorf("quarantine: %w", err)
		}
		r.quarantine = bufio.NewWriter(f)
		r.qfile = f
	case o.Quarantine != nil:
		r.quarantine = bufio.NewWriter(o.Quarantine)
	}
	return r, nil
}

// detectFile peeks at a file's first bytes to pick its format.
func detectFile(path string) (string, error) {
	f, err := OpenFile(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	buf := make([]byte, detectPeek)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	format, err := Detect(buf[:n])
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return format, nil
}

// openSource opens the file with the parser of its kind.
func openSource(path, kind string, m mapping, explicit map[string]string, unitNs int64) (source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if kind == "parquet" {
		if err := notCompressed(f, path); err != nil {
			f.Close()
			return nil, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		src, err := openParquet(f, st.Size(), path, m, explicit, unitNs)
		if err != nil {
			f.Close()
			return nil, err
		}
		return src, nil
	}
	content, err := Decompress(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	br := bufio.NewReaderSize(content, 256<<10)
	if kind == "csv" {
		src, err := newCSVSource(br, content, path, m, explicit, unitNs)
		if err != nil {
			content.Close()
			return nil, err
		}
		return src, nil
	}
	if IsDocuments(br) { // one array, or pretty-printed documents: read as the lines they make
		br = bufio.NewReaderSize(DocumentLines(br, path), 256<<10)
	}
	return newJSONLSource(br, content, path, m, unitNs), nil
}

// checkOrder streams a trace once to see whether its parseable rows are already in time order,
// so Sort only buffers files that need it.
func checkOrder(openSrc func() (source, error)) (bool, error) {
	src, err := openSrc()
	if err != nil {
		return false, err
	}
	defer src.close()
	var r row
	first := true
	var prev int64
	for {
		err := src.next(&r)
		if errors.Is(err, io.EOF) {
			return true, nil
		}
		if isRowError(err) {
			continue
		}
		if err != nil {
			return false, err
		}
		if !first && r.t < prev {
			return false, nil
		}
		first, prev = false, r.t
	}
}

// reader applies validation, the time origin, ordering, the error policy and the quarantine on
// top of a format's source.
type reader struct {
	src            source
	opts           Options
	name           string
	format         string
	explicitFormat bool
	blockSize      int
	quarantine     *bufio.Writer
	qfile          *os.File

	counts     Counts
	rowsSeen   int64
	haveOrigin bool
	origin     int64
	prev       int64
	err        error

	sortAll bool
	maxHeld int64 // holdLimit's, -1 for none; 0 until worked out
	sorted  []timedRecord
	sortPos int
	row     row
}

type timedRecord struct {
	t   int64
	rec trace.Record
}

func (r *reader) Counts() Counts { return r.counts }

// Origin is the raw time (ns) of Timestamp 0: the first record's, or the earliest when sorted.
func (r *reader) Origin() int64 { return r.origin }

// errNoneValid is a trace whose every row was rejected.
var errNoneValid = errors.New("no valid records")

func (r *reader) Next() (trace.Record, error) {
	if r.err != nil {
		return trace.Record{}, r.err
	}
	if r.sortAll {
		return r.nextSorted()
	}
	for {
		row, err := r.nextValid()
		if err != nil {
			return trace.Record{}, r.stop(err)
		}
		if r.haveOrigin && row.t < r.prev {
			e := r.src.where()
			e.Field = r.timeField()
			e.Err = fmt.Errorf("out of order: %s after the trace start, before the previous row's %s (use --sort to sort)", fmtOffset(row.t, r.origin), fmtOffset(r.prev, r.origin))
			if err := r.reject(e); err != nil {
				return trace.Record{}, r.stop(err)
			}
			continue
		}
		if !r.haveOrigin {
			r.haveOrigin, r.origin = true, row.t
		}
		off, ok := sub(row.t, r.origin)
		if !ok {
			e := r.src.where()
			e.Field = r.timeField()
			e.Err = errTimeRange
			if err := r.reject(e); err != nil {
				return trace.Record{}, r.stop(err)
			}
			continue
		}
		r.prev = row.t
		row.rec.Timestamp = durationOf(off)
		r.counts.Records++
		return row.rec, nil
	}
}

// nextSorted drains the source on the first call, sorts stably by time and then replays.
func (r *reader) nextSorted() (trace.Record, error) {
	if r.sorted == nil {
		r.sorted = []timedRecord{}
		for {
			row, err := r.nextValid()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return trace.Record{}, r.stop(err)
			}
			r.sorted = append(r.sorted, timedRecord{t: row.t, rec: row.rec})
			if limit := r.holdLimit(); limit > 0 && int64(len(r.sorted)) > limit {
				return trace.Record{}, r.stop(OverMemory(r.name, r.opts, int64(len(r.sorted)), heldBytes))
			}
		}
		slices.SortStableFunc(r.sorted, func(a, b timedRecord) int {
			switch {
			case a.t < b.t:
				return -1
			case a.t > b.t:
				return 1
			}
			return 0
		})
		r.counts.Sorted = true
		if len(r.sorted) > 0 {
			r.origin = r.sorted[0].t
		}
		if len(r.sorted) == 0 {
			return trace.Record{}, r.stop(io.EOF)
		}
	}
	for r.sortPos < len(r.sorted) {
		tr := r.sorted[r.sortPos]
		r.sorted[r.sortPos] = timedRecord{}
		r.sortPos++
		off, ok := sub(tr.t, r.origin)
		if !ok {
			e := &RowError{File: tr.rec.Source, Line: tr.rec.Line, Row: -1, Field: r.timeField(), Err: errTimeRange}
			if err := r.reject(e); err != nil {
				return trace.Record{}, r.stop(err)
			}
			continue
		}
		tr.rec.Timestamp = durationOf(off)
		r.counts.Records++
		return tr.rec, nil
	}
	return trace.Record{}, r.stop(io.EOF)
}

// heldBytes is about what one record held for sorting takes: the record and a few hashes.
const heldBytes = int64(unsafe.Sizeof(timedRecord{})) + 64

// holdLimit is HoldLimit for this reader, worked out once.
func (r *reader) holdLimit() int64 {
	if r.maxHeld == 0 {
		r.maxHeld = HoldLimit(r.opts, heldBytes)
		if r.maxHeld == 0 {
			r.maxHeld = -1
		}
	}
	return r.maxHeld
}

// nextValid returns the next row that parses and validates; bad rows are rejected per OnError.
func (r *reader) nextValid() (*row, error) {
	for {
		err := r.src.next(&r.row)
		if err != nil && errors.Is(err, io.EOF) { // err != nil: errors.Is costs even on nil
			return nil, io.EOF
		}
		if err != nil && !isRowError(err) {
			return nil, err
		}
		r.rowsSeen++
		if err == nil {
			err = r.validate(&r.row)
		}
		if err != nil {
			if rerr := r.reject(err); rerr != nil {
				return nil, rerr
			}
			continue
		}
		return &r.row, nil
	}
}

// isRowError reports whether err is about one row (the source can go on). It is a function so
// that the *RowError errors.As needs escapes only when there is an error: declared in the row
// loop, it cost a heap allocation per row.
func isRowError(err error) bool {
	var re *RowError
	return errors.As(err, &re)
}

// validate checks a parsed row's values and fills the per-trace fields.
func (r *reader) validate(w *row) error {
	rec := &w.rec
	bad := func(f int, err error) error {
		e := r.src.where()
		e.Field = r.describe(f)
		e.Err = err
		return e
	}
	max := r.opts.MaxTokens
	if rec.PromptTokens > max {
		return bad(fPrompt, fmt.Errorf("absurd value %d (more than %d tokens)", rec.PromptTokens, max))
	}
	if rec.OutputTokens > max {
		return bad(fOutput, fmt.Errorf("absurd value %d (more than %d tokens)", rec.OutputTokens, max))
	}
	if rec.BlockSize == 0 {
		rec.BlockSize = r.blockSize
	}
	if w.hasHashes && rec.BlockSize > 0 && r.opts.HashCheck != HashCheckIgnore {
		// Mooncake hashes the partial last block (ceil); engines and `replay ingest --format
		// openai-log` do not (floor). Both are consistent traces.
		want := (rec.PromptTokens + rec.BlockSize - 1) / rec.BlockSize
		whole := rec.PromptTokens / rec.BlockSize
		if n := len(rec.BlockHashes); n != want && n != whole {
			if r.opts.HashCheck == HashCheckError {
				return bad(fHashes, fmt.Errorf("%d hashes, but ceil(%d prompt tokens / block size %d) = %d, or %d without the partial last block (set --block-size, or --hash-check warn)", len(rec.BlockHashes), rec.PromptTokens, rec.BlockSize, want, whole))
			}
			r.counts.HashMismatches++
		}
	}
	return nil
}

// reject handles one bad row: under "fail" it becomes the error, under "skip" its raw line goes
// to the quarantine and it is counted.
func (r *reader) reject(err error) error {
	if r.opts.OnError != OnErrorSkip {
		return r.hint(err)
	}
	r.counts.Rejected++
	if len(r.counts.Errors) < maxKeptErrors {
		r.counts.Errors = append(r.counts.Errors, err.Error())
	}
	if r.quarantine != nil {
		r.quarantine.Write(r.src.raw())
		if werr := r.quarantine.WriteByte('\n'); werr != nil {
			return fmt.Errorf("quarantine: %w", werr)
		}
	}
	return nil
}

// hint adds, to an error on the first row of a file read with an explicit --format, what
// auto-detection thinks the file is, since a wrong --format makes every row bad.
func (r *reader) hint(err error) error {
	if !r.explicitFormat || r.counts.Records > 0 || r.rowsSeen > 1 {
		return err
	}
	if detected, derr := detectFile(r.name); derr == nil && detected != r.format {
		return fmt.Errorf("%w (the file looks like --format %s, not %s)", err, detected, r.format)
	}
	return err
}

// stop records the terminal state, turning a clean end into the empty-trace checks.
func (r *reader) stop(err error) error {
	if errors.Is(err, io.EOF) {
		switch {
		case r.rowsSeen == 0:
			err = fmt.Errorf("%s: %w", r.name, ErrEmpty)
		case r.counts.Records == 0:
			err = fmt.Errorf("%s: %w: all %d rows rejected (first: %s)", r.name, errNoneValid, r.counts.Rejected, firstOr(r.counts.Errors))
		}
	}
	r.err = err
	return err
}

func firstOr(errs []string) string {
	if len(errs) == 0 {
		return "?"
	}
	return errs[0]
}

func (r *reader) describe(f int) string {
	p := presets[r.format]
	return p.mapping.with(r.opts.Map).describe(f)
}

func (r *reader) timeField() string { return r.describe(fTimestamp) }

func (r *reader) Close() error {
	var err error
	if r.quarantine != nil {
		err = r.quarantine.Flush()
	}
	if r.qfile != nil {
		if cerr := r.qfile.Close(); err == nil {
			err = cerr
		}
		r.qfile = nil
	}
	if r.src != nil {
		if cerr := r.src.close(); err == nil {
			err = cerr
		}
		r.src = nil
	}
	return err
}

// sub is a-b, reporting overflow.
func sub(a, b int64) (int64, bool) {
	d := a - b
	if (b > 0 && d > a) || (b < 0 && d < a) {
		return 0, false
	}
	return d, true
}

// fmtOffset prints a raw time as its offset from the trace origin.
func fmtOffset(t, origin int64) string {
	d, ok := sub(t, origin)
	if !ok {
		return fmt.Sprint(t, "ns")
	}
	return durationOf(d).String()
}
