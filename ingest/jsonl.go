package ingest

import (
	"bufio"
	"fmt"
	"io"
)

// jsonlSource reads one JSON object per line (Mooncake traces, gateway logs), pulling the
// mapped fields (dotted paths reach into nested objects) and skipping the rest unparsed beyond
// syntax checking. Blank lines are ignored.
type jsonlSource struct {
	name   string
	lines  *lineReader
	closer io.Closer
	scan   jsonScanner
	conv   converter
	m      mapping
	last   []byte
}

func newJSONLSource(br *bufio.Reader, closer io.Closer, name string, m mapping, unitNs int64) *jsonlSource {
	return &jsonlSource{
		name:   name,
		lines:  newLineReader(br, name),
		closer: closer,
		scan:   jsonScanner{paths: buildPaths(m)},
		conv:   converter{unitNs: unitNs},
		m:      m,
	}
}

func (s *jsonlSource) next(r *row) error {
	var line []byte
	for {
		var err error
		line, err = s.lines.next()
		if err != nil {
			return err
		}
		if !isBlank(line) {
			break
		}
	}
	s.last = line
	*r = row{}
	r.rec.Source, r.rec.Line = s.name, s.lines.line
	// Hash arrays are parsed straight into the free part of the slab; take keeps them there.
	s.scan.ints = s.conv.slab[:0]
	if err := s.scan.scan(line); err != nil {
		return &RowError{File: s.name, Line: s.lines.line, Row: -1, Err: fmt.Errorf("not a JSON object: %w", err)}
	}
	for f := 0; f < numFields; f++ {
		sp := s.scan.vals[f]
		if sp.kind == kMissing || sp.kind == kNull {
			if requiredField[f] && s.m[f] != "" {
				err := errMissing
				if sp.kind == kMissing {
					err = missingKey(Fields[f])
				}
				return &RowError{File: s.name, Line: s.lines.line, Row: -1, Field: s.m.describe(f), Err: err}
			}
			continue
		}
		if f == fHashes && s.scan.intsOK {
			r.rec.BlockHashes = s.conv.take(s.scan.ints)
			r.hasHashes = true
			continue
		}
		if sp.isUint && s.conv.setUint(r, f, sp.num) {
			continue
		}
		b := sp.in(line)
		if sp.kind == kString {
			b = s.scan.text(line, sp)
		}
		if err := s.conv.set(r, f, sp.kind, b); err != nil {
			return &RowError{File: s.name, Line: s.lines.line, Row: -1, Field: s.m.describe(f), Err: err}
		}
	}
	return nil
}

func (s *jsonlSource) raw() []byte { return s.last }

func (s *jsonlSource) where() *RowError {
	return &RowError{File: s.name, Line: s.lines.line, Row: -1}
}

func (s *jsonlSource) close() error {
	if s.closer != nil {
		return s.closer.Close()
	}
	return nil
}
