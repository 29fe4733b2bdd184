package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// csvSource reads a CSV file with a header line (Azure, BurstGPT, any CSV with --map). Cells
// may be quoted ("" escapes a quote) but may not span lines: every row is one line, so errors
// and the quarantine point at exactly one line.
type csvSource struct {
	name    string
	lines   *lineReader
	closer  io.Closer
	conv    converter
	m       mapping
	cols    [numFields]int // header index of each field, -1 when not present
	ncols   int
	cells   [][]byte
	scratch []byte
	last    []byte
}

// newCSVSource reads the header and resolves the mapping against it. explicit lists the fields
// the user mapped: those, and the required ones, must be in the header.
func newCSVSource(br *bufio.Reader, closer io.Closer, name string, m mapping, explicit map[string]string, unitNs int64) (*csvSource, error) {
	s := &csvSource{
		name:   name,
		lines:  newLineReader(br, name),
		closer: closer,
		conv:   converter{unitNs: unitNs},
		m:      m,
	}
	header, err := s.lines.next()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", name, ErrEmpty)
	}
	if err != nil {
		return nil, err
	}
	cells, err := s.split(header)
	if err != nil {
		return nil, &RowError{File: name, Line: 1, Row: -1, Err: fmt.Errorf("header: %w", err)}
	}
	names := make([]string, len(cells))
	for i, c := range cells {
		names[i] = strings.TrimSpace(string(c))
	}
	s.ncols = len(names)
	for f := range s.cols {
		s.cols[f] = -1
		if m[f] == "" {
			continue
		}
		for i, n := range names {
			if n == m[f] {
				s.cols[f] = i
				break
			}
		}
		_, userMapped := explicit[Fields[f]]
		if s.cols[f] < 0 && (requiredField[f] || userMapped) {
			return nil, &RowError{File: name, Line: 1, Row: -1, Err: noColumn(Fields[f], m[f], userMapped, names)}
		}
	}
	return s, nil
}

// split cuts one line into cells, unquoting quoted ones into scratch.
func (s *csvSource) split(line []byte) ([][]byte, error) {
	s.cells = s.cells[:0]
	s.scratch = s.scratch[:0]
	// Quoted cells are unescaped into scratch; reserve enough so appends never move it.
	if cap(s.scratch) < len(line) {
		s.scratch = make([]byte, 0, len(line)*2)
	}
	i := 0
	for {
		if i < len(line) && line[i] == '"' {
			i++
			start := len(s.scratch)
			for {
				j := bytes.IndexByte(line[i:], '"')
				if j < 0 {
					return nil, errors.New("unterminated quoted cell (cells spanning lines are not supported)")
				}
				s.scratch = append(s.scratch, line[i:i+j]...)
				i += j + 1
				if i < len(line) && line[i] == '"' {
					s.scratch = append(s.scratch, '"')
					i++
					continue
				}
				break
			}
			s.cells = append(s.cells, s.scratch[start:len(s.scratch):len(s.scratch)])
			if i == len(line) {
				return s.cells, nil
			}
			if line[i] != ',' {
				return nil, fmt.Errorf("character %q after a quoted cell", line[i])
			}
			i++
			continue
		}
		j := bytes.IndexByte(line[i:], ',')
		if j < 0 {
			s.cells = append(s.cells, line[i:])
			return s.cells, nil
		}
		s.cells = append(s.cells, line[i:i+j])
		i += j + 1
	}
}

func (s *csvSource) next(r *row) error {
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
	cells, err := s.split(line)
	if err != nil {
		return &RowError{File: s.name, Line: s.lines.line, Row: -1, Err: err}
	}
	if len(cells) != s.ncols {
		return &RowError{File: s.name, Line: s.lines.line, Row: -1, Err: fmt.Errorf("%d cells, the header has %d", len(cells), s.ncols)}
	}
	for f, ci := range s.cols {
		if ci < 0 {
			continue
		}
		cell := bytes.TrimSpace(cells[ci])
		if len(cell) == 0 {
			if requiredField[f] {
				return &RowError{File: s.name, Line: s.lines.line, Row: -1, Field: s.m.describe(f), Err: errMissing}
			}
			continue
		}
		if err := s.conv.set(r, f, kText, cell); err != nil {
			return &RowError{File: s.name, Line: s.lines.line, Row: -1, Field: s.m.describe(f), Err: err}
		}
	}
	return nil
}

func (s *csvSource) raw() []byte { return s.last }

func (s *csvSource) where() *RowError {
	return &RowError{File: s.name, Line: s.lines.line, Row: -1}
}

func (s *csvSource) close() error {
	if s.closer != nil {
		return s.closer.Close()
	}
	return nil
}
