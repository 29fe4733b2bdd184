package ingest

import (
	"bufio"
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/llm-replay/replay/trace"
)

// A log delivered as many files (a file a minute or an hour, a file per gateway replica) is
// one log: its records in time order, records of the same instant by file name, then line.
// The set's reader is a k-way merge of the files' own readers, each of which streams its file
// in order (or, for a file out of order, reads it whole and sorts it, as it would alone). To
// keep memory bounded by the files that overlap in time, not by the day, a first pass finds
// each file's first and last instant (one file open at a time), and the merge opens a file
// only when the merge reaches its first record and closes it at its end: files of one
// minute each are read one or two at a time, replicas' files of the same day all at once.
// What a file's reader does across a file's records stays within the file: a source that
// joins several records of one request (API Management's gateway and LLM records, by
// CorrelationId) joins them only where they share a file, and an OTLP session's turns are
// numbered per file.

// Anchored is a Reader whose records' times count from a known instant, which several files'
// records need to be merged on one clock. Origin is the raw time (ns on the log's own clock)
// of the Timestamp 0 of the records Next has returned; it is valid once Next returned one.
type Anchored interface {
	Reader
	Origin() int64
}

// FileCounts is what one file of a set gave.
type FileCounts struct {
	File string `json:"file"`
	Counts
	// Unread: the read stopped before the merge reached this file (a window, --limit).
	Unread bool `json:"unread,omitempty"`
}

// span is a file's first and last record on the log's clock; empty when it has none.
type span struct {
	first, last int64
	empty       bool
	counts      Counts // an empty file's, from the first pass
}

// fileHead is an open file of the merge and its next record.
type fileHead struct {
	file int
	r    Anchored
	rec  trace.Record
	at   int64 // rec's time on the log's clock
}

// setReader merges the records of several files into one stream (the file comment above).
type setReader struct {
	files    []string
	opts     Options // each file's: the set's quarantine writer, PartOfSet
	spans    []span
	order    []int // file indexes by first record, then index
	opened   int   // how many of order are opened
	heads    headHeap
	origin   int64
	done     []Counts // each file's, once it ends
	prefixes CachedPrefixes
	records  int64
	qfile    *os.File
	qbuf     *bufio.Writer
	err      error
	maxOpen  int        // the most files open at once (Counts.MostFilesOpen)
	reached  []bool     // by file: opened by the merge
	held     *heldFiles // readers kept from the first pass (heldfiles.go)
}

// openSet opens files as one log (Options.Files), after the first pass over each.
func openSet(o Options) (Reader, error) {
	s := &setReader{files: o.Files, done: make([]Counts, len(o.Files)), reached: make([]bool, len(o.Files)),
		held: newHeldFiles(o, o.QuarantinePath != "" || o.Quarantine != nil)}
	s.opts = o
	s.opts.Files, s.opts.QuarantinePath, s.opts.PartOfSet = nil, "", true
	if err := s.scan(); err != nil {
		s.held.close()
		return nil, err
	}
	if o.QuarantinePath != "" {
		f, err := os.Create(o.QuarantinePath)
		if err != nil {
			s.held.close()
			return nil, fmt.Errorf("quarantine: %w", err)
		}
		s.qfile, s.qbuf = f, bufio.NewWriter(f)
		s.opts.Quarantine = s.qbuf
	}
	if s.opts.Quarantine != nil {
		if err := s.quarantineEmpty(); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// quarantineEmpty reads again, into the quarantine, the files whose every row was rejected:
// the merge never opens them, having nothing to merge from them.
func (s *setReader) quarantineEmpty() error {
	for i, sp := range s.spans {
		if !sp.empty || sp.counts.Rejected == 0 {
			continue
		}
		r, _, err := openFile(s.files[i], s.opts)
		if err != nil {
			return err
		}
		if r != nil {
			r.Close()
		}
	}
	return nil
}

// scan is the first pass: each file's span, in turn, and the order files open in.
func (s *setReader) scan() error {
	first := s.opts
	first.Quarantine = nil
	s.spans = make([]span, len(s.files))
	found := false
	for i, f := range s.files {
		sp, r, err := fileSpan(f, first)
		if err != nil {
			return err
		}
		if r != nil && !s.held.keep(i, r) {
			r.Close()
		}
		s.spans[i] = sp
		if !sp.empty {
			s.order = append(s.order, i)
			if !found || sp.first < s.origin {
				s.origin = sp.first
			}
			found = true
		}
	}
	if !found {
		return fmt.Errorf("%d files: %w: no record in any", len(s.files), ErrEmpty)
	}
	slices.SortStableFunc(s.order, func(a, b int) int { return cmp.Compare(s.spans[a].first, s.spans[b].first) })
	return nil
}

// fileSpan reads a file through to find its first and last instant; it returns the reader,
// read to its end, for the caller to keep or close (nil for a file without records).
func fileSpan(path string, o Options) (span, Anchored, error) {
	r, rec, err := openFile(path, o)
	if _, empty := r.(emptyReader); err != nil || r == nil || empty {
		return span{empty: true, counts: countsOf(r)}, nil, err
	}
	at := r.Origin() + int64(rec.Timestamp)
	sp := span{first: at, last: at}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return sp, r, nil
		}
		if err != nil {
			r.Close()
			return span{}, nil, err
		}
		at := r.Origin() + int64(rec.Timestamp)
		sp.first, sp.last = min(sp.first, at), max(sp.last, at)
	}
}

// openFile opens one file of a set and reads its first record; r is nil, with no error, for a
// file without records (an empty minute, or every record rejected under --on-error skip).
func openFile(path string, o Options) (Anchored, trace.Record, error) {
	r, err := openOne(path, o)
	switch {
	case errors.Is(err, ErrEmpty):
		return nil, trace.Record{}, nil
	case err != nil && o.OnError == OnErrorSkip && !errors.Is(err, ErrOverMemory):
		// A file that cannot be read as a log at all (no format it could be): under skip it is
		// one rejection, named, and the other files are read.
		return emptyReader{Counts{Rejected: 1, Errors: []string{err.Error()}}}, trace.Record{}, nil
	case err != nil:
		return nil, trace.Record{}, err
	}
	a, ok := r.(Anchored)
	if !ok {
		r.Close()
		return nil, trace.Record{}, fmt.Errorf("%s: this format's reader cannot be merged with other files (its times have no origin): give it alone", path)
	}
	rec, err := r.Next()
	switch {
	case err == nil:
		return a, rec, nil
	case errors.Is(err, io.EOF), errors.Is(err, ErrEmpty), errors.Is(err, errNoneValid) && o.OnError == OnErrorSkip:
		r.Close()
		return emptyReader{r.Counts()}, trace.Record{}, nil
	}
	r.Close()
	return nil, trace.Record{}, err
}

// emptyReader stands for a file that had no records, keeping its counts.
type emptyReader struct{ counts Counts }

func (e emptyReader) Next() (trace.Record, error) { return trace.Record{}, io.EOF }
func (e emptyReader) Counts() Counts              { return e.counts }
func (e emptyReader) Close() error                { return nil }
func (e emptyReader) Origin() int64               { return 0 }

func countsOf(r Reader) Counts {
	if r == nil {
		return Counts{}
	}
	return r.Counts()
}

// Next is the earliest record of the open files, after opening the files whose first record
// may come before it.
func (s *setReader) Next() (trace.Record, error) {
	if s.err != nil {
		return trace.Record{}, s.err
	}
	if err := s.openDue(); err != nil {
		s.err = err
		return trace.Record{}, err
	}
	if len(s.heads) == 0 {
		s.err = io.EOF
		return trace.Record{}, io.EOF
	}
	h := s.heads[0]
	rec := h.rec
	rec.Timestamp = time.Duration(h.at - s.origin)
	if err := s.advance(h); err != nil {
		s.err = err
		return trace.Record{}, err
	}
	s.prefixes.Apply(&rec)
	s.records++
	return rec, nil
}

// openDue opens, in the order of their first records, the files whose first record is not
// after the earliest open one's next (any file, when none is open).
func (s *setReader) openDue() error {
	for s.opened < len(s.order) {
		i := s.order[s.opened]
		if len(s.heads) > 0 && s.spans[i].first > s.heads[0].at {
			return nil
		}
		s.opened++
		s.reached[i] = true
		r, rec, err := s.reopen(i)
		if err != nil {
			return err
		}
		if _, empty := r.(emptyReader); r == nil || empty {
			s.done[i] = countsOf(r)
			continue
		}
		heap.Push(&s.heads, &fileHead{file: i, r: r, rec: rec, at: r.Origin() + int64(rec.Timestamp)})
		s.maxOpen = max(s.maxOpen, len(s.heads))
	}
	return nil
}

// reopen is file i's reader for the merge, at its first record: the one kept from the first
// pass, rewound, else the file opened again.
func (s *setReader) reopen(i int) (Anchored, trace.Record, error) {
	r := s.held.take(i)
	if r == nil {
		return openFile(s.files[i], s.opts)
	}
	rec, err := r.Next()
	if err != nil {
		r.Close()
		return nil, trace.Record{}, fmt.Errorf("%s: read again: %w", s.files[i], err)
	}
	return r, rec, nil
}

// advance moves the earliest file on to its next record, closing it at its end.
func (s *setReader) advance(h *fileHead) error {
	rec, err := h.r.Next()
	if err == nil {
		h.rec, h.at = rec, h.r.Origin()+int64(rec.Timestamp)
		heap.Fix(&s.heads, 0)
		return nil
	}
	if !errors.Is(err, io.EOF) {
		return err
	}
	heap.Pop(&s.heads)
	s.done[h.file] = h.r.Counts()
	return h.r.Close()
}

// Counts sums the files' counts (those read so far), with each file's own under Files.
func (s *setReader) Counts() Counts {
	c := Counts{Records: s.records, CachedUnplaced: s.prefixes.Unplaced, MostFilesOpen: s.maxOpen}
	per := slices.Clone(s.done)
	for _, h := range s.heads {
		per[h.file] = h.r.Counts()
	}
	for i, sp := range s.spans {
		if sp.empty {
			per[i] = sp.counts
		}
	}
	for i, fc := range per {
		c.Rejected += fc.Rejected
		c.Skipped += fc.Skipped
		c.HashMismatches += fc.HashMismatches
		c.OutputUnknown += fc.OutputUnknown
		c.Images += fc.Images
		c.ImagesSizeInferred += fc.ImagesSizeInferred
		c.Sorted = c.Sorted || fc.Sorted
		for name, n := range fc.ImageRules {
			if c.ImageRules == nil {
				c.ImageRules = map[string]int64{}
			}
			c.ImageRules[name] += n
		}
		for _, e := range fc.Errors {
			if len(c.Errors) < maxKeptErrors {
				c.Errors = append(c.Errors, e)
			}
		}
		fc.Errors = nil
		unread := !s.spans[i].empty && !s.reached[i]
		c.Files = append(c.Files, FileCounts{File: s.files[i], Counts: fc, Unread: unread})
	}
	return c
}

func (s *setReader) Close() error {
	s.held.close()
	var err error
	for _, h := range s.heads {
		if cerr := h.r.Close(); err == nil {
			err = cerr
		}
	}
	s.heads = nil
	if s.qbuf != nil {
		if ferr := s.qbuf.Flush(); err == nil {
			err = ferr
		}
		if cerr := s.qfile.Close(); err == nil {
			err = cerr
		}
		s.qbuf, s.qfile = nil, nil
	}
	return err
}

// headHeap orders open files by their next record's time, then by file (name order).
type headHeap []*fileHead

func (h headHeap) Len() int { return len(h) }
func (h headHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].file < h[j].file
}
func (h headHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *headHeap) Push(x any)   { *h = append(*h, x.(*fileHead)) }
func (h *headHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
