package otlp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/trace"
)

// Format is the --format name of OTLP JSON lines.
const Format = "otlp"

// maxLine bounds one line: a Collector batch of thousands of spans.
const maxLine = 256 << 20

// decoder reads the Collector's protobuf-JSON; members of newer OTLP releases are ignored.
var decoder = protojson.UnmarshalOptions{DiscardUnknown: true}

// Read reads the OTLP JSON lines at path into records, sorted by start.
func Read(path string, opts ingest.Options) (ingest.Reader, error) {
	f, err := ingest.OpenFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Format, err)
	}
	defer f.Close()
	k, err := keysFor(opts.Map)
	if err != nil {
		return nil, err
	}
	c := &collector{path: path, opts: opts, k: k, r: &reader{}, quarantine: opts.Quarantine}
	if opts.QuarantinePath != "" {
		q, err := os.Create(opts.QuarantinePath)
		if err != nil {
			return nil, fmt.Errorf("quarantine: %w", err)
		}
		defer q.Close()
		c.quarantine = q
	}
	if err := c.lines(f); err != nil {
		return nil, err
	}
	if len(c.reqs) == 0 {
		return nil, fmt.Errorf("%s: %w (%d spans skipped as no GenAI request, %d rejected)", path, ingest.ErrEmpty, c.r.counts.Skipped, c.r.counts.Rejected)
	}
	c.r.recs = records(path, c.reqs)
	c.r.origin = int64(c.reqs[0].start) // sorted by records
	c.r.counts.Records = int64(len(c.r.recs))
	return c.r, nil
}

// collector gathers a file's requests, counts the spans it skips, and rejects or quarantines
// bad lines and spans under the options.
type collector struct {
	path       string
	opts       ingest.Options
	k          keys
	quarantine io.Writer
	r          *reader
	reqs       []request
}

// lines reads f a line at a time: each a whole ExportTraceServiceRequest.
func (c *collector) lines(f io.Reader) error {
	br := bufio.NewReaderSize(f, 1<<20)
	for n := int64(1); ; n++ {
		line, err := readLine(br)
		if len(bytes.TrimSpace(line)) > 0 {
			if err := c.line(line, n); err != nil {
				return err
			}
		}
		switch {
		case err == io.EOF:
			return nil
		case err != nil:
			return fmt.Errorf("%s:%d: %w", c.path, n, err)
		}
	}
}

// readLine is the next line without its end, at most maxLine bytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		part, err := br.ReadSlice('\n')
		line = append(line, part...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("line longer than %d MiB", maxLine>>20)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimRight(line, "\r\n"), err
		}
	}
}

// line reads one request's spans: every GenAI span a request, the others skipped.
func (c *collector) line(raw []byte, n int64) error {
	var req collectortrace.ExportTraceServiceRequest
	if err := decoder.Unmarshal(raw, &req); err != nil {
		return c.reject(raw, n, fmt.Errorf("not an OTLP ExportTraceServiceRequest in JSON: %w", err))
	}
	var kept []request
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				r, ok, err := readSpan(s, c.k)
				switch {
				case err != nil:
					return c.reject(raw, n, fmt.Errorf("span %x: %w", s.SpanId, err))
				case !ok:
					c.r.counts.Skipped++
					continue
				}
				r.rec.Line = n
				kept = append(kept, r)
			}
		}
	}
	c.reqs = append(c.reqs, kept...)
	return nil
}

// reject fails on a bad line, or under --on-error skip counts and quarantines it whole (one
// bad span rejects its line: the line is what the quarantine can hold).
func (c *collector) reject(raw []byte, n int64, err error) error {
	rowErr := &ingest.RowError{File: c.path, Line: n, Row: -1, Err: err}
	var fe *fieldError
	if errors.As(err, &fe) {
		rowErr.Field, rowErr.Err = fe.key, fe.err
	}
	if c.opts.OnError != ingest.OnErrorSkip {
		return rowErr
	}
	return c.r.counts.Skip(c.quarantine, raw, rowErr)
}

// records are the requests sorted by start, timed from the first, each session's turns
// numbered in that order.
func records(path string, reqs []request) []trace.Record {
	slices.SortStableFunc(reqs, func(a, b request) int {
		switch {
		case a.start < b.start:
			return -1
		case a.start > b.start:
			return 1
		}
		return 0
	})
	origin := reqs[0].start
	turns := map[string]int{}
	out := make([]trace.Record, len(reqs))
	for i, q := range reqs {
		rec := q.rec
		rec.Timestamp = time.Duration(q.start - origin)
		rec.Source = path
		if rec.SessionID != "" {
			rec.Turn = turns[rec.SessionID]
			turns[rec.SessionID]++
		}
		out[i] = rec
	}
	return out
}

// reader hands out the sorted records.
type reader struct {
	recs   []trace.Record
	next   int
	counts ingest.Counts
	origin int64 // the first span's start, ns since the Unix epoch
}

// Origin is the first span's start: what the records' times count from.
func (r *reader) Origin() int64 { return r.origin }

func (r *reader) Next() (trace.Record, error) {
	if r.next >= len(r.recs) {
		return trace.Record{}, io.EOF
	}
	r.next++
	return r.recs[r.next-1], nil
}

func (r *reader) Counts() ingest.Counts { return r.counts }

// Rewind gives the records again from the first (ingest.Rewindable: a set of files keeps the
// reader of its first pass rather than read the file twice).
func (r *reader) Rewind() { r.next = 0 }

// Held is how many records the reader holds.
func (r *reader) Held() int { return len(r.recs) }

func (r *reader) Close() error { r.recs = nil; return nil }
