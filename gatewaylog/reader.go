package gatewaylog

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"
	"unsafe"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/trace"
)

// maxRecord bounds one record (a line, or an element of a JSON array export).
const maxRecord = 64 << 20

// Options are ingest's, plus the year of timestamps logged without one.
type Options struct {
	ingest.Options
	// Year is the year of timestamps logged without one (a server log's month-day times); 0 takes
	// the file's modification time's year.
	Year int
}

// entryAt is an entry with where it came from.
type entryAt struct {
	Entry
	at   time.Time
	line int64
	raw  []byte // kept only while a Finish check may yet reject it into the quarantine
}

// reader is an ingest.Reader over a whole log, read and sorted at Open: several sources log
// records when requests end, so arrivals come out of order by up to the longest request.
type reader struct {
	recs   []trace.Record
	next   int
	counts ingest.Counts
	origin int64 // the first arrival, ns since the Unix epoch
}

// Read reads a log of schema s at path into records, in arrival order.
func Read(path string, s Schema, opts Options) (ingest.Reader, error) {
	tm, err := timeMap(s, opts.Map)
	if err != nil {
		return nil, err
	}
	f, err := ingest.OpenFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Format, err)
	}
	defer f.Close()
	if opts.Year == 0 {
		if st, err := os.Stat(path); err == nil {
			opts.Year = st.ModTime().UTC().Year()
		}
	}
	var quarantine io.Writer = opts.Quarantine
	if opts.QuarantinePath != "" {
		q, err := os.Create(opts.QuarantinePath)
		if err != nil {
			return nil, fmt.Errorf("quarantine: %w", err)
		}
		defer q.Close()
		quarantine = q
	}
	c := &collector{s: s, path: path, opts: opts, timeFrom: tm, quarantine: quarantine, r: &reader{},
		pending: map[string][]Entry{}, latest: map[string]int{}, maxHeld: ingest.HoldLimit(opts.Options, heldBytes)}
	if s.Join == nil {
		err = eachRecord(f, s.Lines, func(raw []byte, line int64) error {
			e, err := readOne(s, raw, opts.Year, tm)
			return c.take(raw, line, e, err)
		})
	} else {
		err = readJoined(f, s, c)
	}
	var rowErr *ingest.RowError
	if err != nil && !errors.As(err, &rowErr) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err != nil {
		return nil, err
	}
	r := c.r
	entries, err := settle(s, c.entries, c.reject, &r.counts)
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 && opts.PartOfSet {
		return r, nil // one file of several (an empty minute): its counts are the set's
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("%s: %w (%d records skipped as no model request, %d rejected)", path, ingest.ErrEmpty, r.counts.Skipped, r.counts.Rejected)
	}
	slices.SortStableFunc(entries, func(a, b entryAt) int { return a.at.Compare(b.at) })
	r.origin = entries[0].at.UnixNano()
	r.recs, r.counts.CachedUnplaced = records(path, entries, !opts.PartOfSet)
	for _, rec := range r.recs {
		r.counts.Images += int64(len(rec.Media))
	}
	r.counts.Records = int64(len(r.recs))
	return r, nil
}

// collector gathers a log's entries, counts what it skips, and rejects or quarantines bad
// records under the options.
type collector struct {
	s          Schema
	path       string
	opts       Options
	timeFrom   []string // --map timestamp=KEY's path (timemap.go)
	quarantine io.Writer
	r          *reader
	entries    []entryAt
	// A source that logs a request over several lines joins them by ID (Schema.Merge): a
	// Leads part waits in pending for the next whole record of its ID, a Follows part goes to
	// the latest one (latest: its index in entries).
	pending map[string][]Entry
	latest  map[string]int
	// maxHeld is the most entries the memory budget lets a file hold (0: unbounded).
	maxHeld int64
}

// heldBytes is about what one request of a log held to sort takes: its entry, then its record
// and options.
const heldBytes = int64(unsafe.Sizeof(entryAt{}) + unsafe.Sizeof(trace.Record{}) + unsafe.Sizeof(trace.Options{}))

// take takes one record's reading: an entry, a skip, or an error (returned under
// OnErrorFail, else counted and quarantined).
func (c *collector) take(raw []byte, line int64, e Entry, err error) error {
	switch {
	case errors.Is(err, ErrCountedElsewhere), errors.Is(err, ErrNotRecord):
		return nil
	case errors.Is(err, ErrNotModelRequest):
		c.r.counts.Skipped++
		return nil
	case err != nil:
		return c.reject(raw, line, err)
	}
	if c.s.Merge != nil && !c.merged(&e) {
		return nil
	}
	ea := entryAt{Entry: e, line: line}
	if c.s.Finish != nil && c.quarantine != nil {
		ea.raw = raw // for the quarantine, should Finish reject it
	}
	c.entries = append(c.entries, ea)
	if c.maxHeld > 0 && int64(len(c.entries)) > c.maxHeld {
		return ingest.OverMemory(c.path, c.opts.Options, int64(len(c.entries)), heldBytes)
	}
	return nil
}

// merged joins a part of a request logged over several lines with the rest of it: a Leads
// part is held for the next whole record of its ID, a Follows part merged into the latest
// one, and a whole record takes the parts held for it. It reports whether e is a whole
// record to keep.
func (c *collector) merged(e *Entry) bool {
	switch e.Part {
	case Leads:
		if len(c.pending[e.ID]) < 64 { // bounded: a hostile log repeats one ID
			c.pending[e.ID] = append(c.pending[e.ID], *e)
		}
		return false
	case Follows:
		if i, ok := c.latest[e.ID]; ok {
			c.s.Merge(&c.entries[i].Entry, *e)
		}
		return false
	}
	for _, p := range c.pending[e.ID] {
		c.s.Merge(e, p)
	}
	delete(c.pending, e.ID)
	c.latest[e.ID] = len(c.entries)
	return true
}

// reject counts a bad record and quarantines it, or, without --on-error skip, stops the
// read with it.
func (c *collector) reject(raw []byte, line int64, err error) error {
	rowErr := &ingest.RowError{File: c.path, Line: line, Row: -1, Err: err}
	var fe *FieldError
	if errors.As(err, &fe) {
		rowErr.Field, rowErr.Err = fe.Field, fe.Err
	}
	if c.opts.OnError != ingest.OnErrorSkip {
		return rowErr
	}
	return c.r.counts.Skip(c.quarantine, raw, rowErr)
}

// settle checks each request once all its records are in (Schema.Finish), rejecting those
// it finds wanting, counts those without an output count, and gives each its arrival.
func settle(s Schema, entries []entryAt, reject func([]byte, int64, error) error, counts *ingest.Counts) ([]entryAt, error) {
	kept := entries[:0]
	for _, e := range entries {
		if s.Finish != nil {
			if err := s.Finish(&e.Entry); err != nil {
				if err := reject(e.raw, e.line, err); err != nil {
					return nil, err
				}
				continue
			}
		}
		if e.OutputUnknown {
			counts.OutputUnknown++
		}
		e.at, _ = e.Arrival()
		e.raw = nil
		kept = append(kept, e)
	}
	return kept, nil
}

// readJoined reads a log whose schema joins records (join.go): every record is held until the
// whole file is in, then the joined ones are read in line order, with those that were not JSON
// rejected at their lines among them.
func readJoined(src io.Reader, s Schema, c *collector) error {
	type held struct {
		rec Record
		err error
	}
	var joinable []Record
	var all []held
	err := eachRecord(src, s.Lines, func(raw []byte, line int64) error {
		rec, err := decodeOne(s, raw, c.opts.Year, c.timeFrom)
		rec.Line = line
		if err != nil {
			all = append(all, held{rec, err})
		} else {
			joinable = append(joinable, rec)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, rec := range s.Join(joinable) {
		all = append(all, held{rec: rec})
	}
	slices.SortStableFunc(all, func(a, b held) int { return cmp.Compare(a.rec.Line, b.rec.Line) })
	for _, h := range all {
		e, err := Entry{}, h.err
		if err == nil {
			e, err = readRecord(s, h.rec)
		}
		if err := c.take(h.rec.Raw, h.rec.Line, e, err); err != nil {
			return err
		}
	}
	return nil
}

// readOne reads one record with its schema; a JSON record is decoded first, and, for a schema
// with a Join, joined on its own (as the only record of its file).
func readOne(s Schema, raw []byte, year int, timeFrom []string) (Entry, error) {
	rec, err := decodeOne(s, raw, year, timeFrom)
	if err != nil {
		return Entry{}, err
	}
	if s.Join != nil {
		recs := s.Join([]Record{rec})
		if len(recs) != 1 {
			return Entry{}, ErrCountedElsewhere
		}
		rec = recs[0]
	}
	return readRecord(s, rec)
}

// decodeOne is a record as its schema reads it: decoded when the source writes JSON, its time
// moved where the schema reads it from when --map timestamp=KEY (timeFrom) says.
func decodeOne(s Schema, raw []byte, year int, timeFrom []string) (Record, error) {
	rec := Record{Raw: raw, Year: year}
	if s.Lines {
		return rec, nil
	}
	dec, err := decodeRecord(raw, year)
	if err != nil {
		return rec, fmt.Errorf("not a JSON record: %w", err)
	}
	moveTime(s, dec, timeFrom)
	return dec, nil
}

// readRecord reads a decoded record with its schema, which must give it an arrival.
func readRecord(s Schema, rec Record) (Entry, error) {
	e, err := s.Read(rec)
	if err != nil {
		return e, timeHint(s, rec, err)
	}
	if _, err := e.Arrival(); err != nil {
		return e, err
	}
	return e, nil
}

// eachRecord calls fn with each record of src and the line it begins on: each non-blank line
// of JSON lines or of a text log, or, for a JSON source whose records span lines or sit in one
// array (ingest.EachDocument), each JSON document.
func eachRecord(src io.Reader, lines bool, fn func(raw []byte, line int64) error) error {
	// 64 KiB: a set's files are opened one after another, thousands a day, so a larger
	// buffer costs more to clear than it saves in reads; a longer record grows the scanner's.
	br := bufio.NewReaderSize(src, 64<<10)
	if !lines && ingest.IsDocuments(br) {
		return ingest.EachDocument(br, func(raw []byte, line int64) error {
			return fn(slices.Clone(raw), line)
		})
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, 64<<10), maxRecord)
	var n int64
	for sc.Scan() {
		n++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if err := fn(slices.Clone(sc.Bytes()), n); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("line %d: %w", n+1, err)
	}
	return nil
}
