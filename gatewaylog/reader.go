package gatewaylog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

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
}

// Read reads a log of schema s at path into records, in arrival order.
func Read(path string, s Schema, opts Options) (ingest.Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Format, err)
	}
	defer f.Close()
	if opts.Year == 0 {
		if st, err := f.Stat(); err == nil {
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
	r := &reader{}
	var entries []entryAt
	rej := &rejecter{path: path, skip: opts.OnError == ingest.OnErrorSkip, quarantine: quarantine, counts: &r.counts}
	reject := rej.reject
	// A source that logs a request over several lines joins them by ID: a Leads part waits
	// for the next whole record of its ID, a Follows part goes to the latest one.
	pending := map[string][]Entry{}
	latest := map[string]int{}
	err = eachRecord(f, s.Lines, func(raw []byte, line int64) error {
		e, err := readOne(s, raw, opts.Year)
		switch {
		case errors.Is(err, ErrCountedElsewhere), errors.Is(err, ErrNotRecord):
			return nil
		case errors.Is(err, ErrNotModelRequest):
			r.counts.Skipped++
			return nil
		case err != nil:
			return reject(raw, line, err)
		}
		if s.Merge != nil && e.Part != Whole {
			if e.Part == Leads {
				if len(pending[e.ID]) < 64 { // bounded: a hostile log repeats one ID
					pending[e.ID] = append(pending[e.ID], e)
				}
			} else if i, ok := latest[e.ID]; ok {
				s.Merge(&entries[i].Entry, e)
			}
			return nil
		}
		if s.Merge != nil {
			for _, p := range pending[e.ID] {
				s.Merge(&e, p)
			}
			delete(pending, e.ID)
			latest[e.ID] = len(entries)
		}
		ea := entryAt{Entry: e, line: line}
		if s.Finish != nil && quarantine != nil {
			ea.raw = raw // for the quarantine, should Finish reject it
		}
		entries = append(entries, ea)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if entries, err = settle(s, entries, reject, &r.counts); err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("%s: %w (%d records skipped as no model request, %d rejected)", path, ingest.ErrEmpty, r.counts.Skipped, r.counts.Rejected)
	}
	slices.SortStableFunc(entries, func(a, b entryAt) int { return a.at.Compare(b.at) })
	r.recs, r.counts.CachedUnplaced = records(path, entries)
	r.counts.Records = int64(len(r.recs))
	return r, nil
}

// rejecter counts a bad record and quarantines it, or, without --on-error skip, stops the
// read with it.
type rejecter struct {
	path       string
	skip       bool
	quarantine io.Writer
	counts     *ingest.Counts
}

func (q *rejecter) reject(raw []byte, line int64, err error) error {
	rowErr := &ingest.RowError{File: q.path, Line: line, Row: -1, Err: err}
	var fe *FieldError
	if errors.As(err, &fe) {
		rowErr.Field, rowErr.Err = fe.Field, fe.Err
	}
	if !q.skip {
		return rowErr
	}
	q.counts.Rejected++
	if len(q.counts.Errors) < 10 {
		q.counts.Errors = append(q.counts.Errors, rowErr.Error())
	}
	if q.quarantine != nil {
		if _, err := q.quarantine.Write(append(bytes.TrimRight(raw, "\r\n"), '\n')); err != nil {
			return fmt.Errorf("quarantine: %w", err)
		}
	}
	return nil
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

// readOne reads one record with its schema; a JSON record is decoded first.
func readOne(s Schema, raw []byte, year int) (Entry, error) {
	rec := Record{Raw: raw, Year: year}
	if !s.Lines {
		var err error
		if rec, err = decodeRecord(raw, year); err != nil {
			return Entry{}, fmt.Errorf("not a JSON record: %w", err)
		}
	}
	e, err := s.Read(rec)
	if err != nil {
		return e, err
	}
	if _, err := e.Arrival(); err != nil {
		return e, err
	}
	return e, nil
}

// eachRecord calls fn with each record of src and its 1-based line: each non-blank line, or,
// for a JSON source whose file is one array (an export), each element.
func eachRecord(src io.Reader, lines bool, fn func(raw []byte, line int64) error) error {
	br := bufio.NewReaderSize(src, 1<<20)
	if !lines {
		if b, _ := peekNonSpace(br); b == '[' {
			return eachElement(br, fn)
		}
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, 1<<20), maxRecord)
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
