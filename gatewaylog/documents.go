package gatewaylog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
)

// A log is delivered as JSON lines, as one JSON array of records (a console's or API's export),
// or as JSON documents one after another with any white space between them (a shipper's
// pretty-printed output): the three ways DuckDB's read_json and jq read JSON. The documents
// scanner below only finds where each record begins and ends, streaming (one record in memory
// at a time), and the line it begins on; the record's own syntax is checked when it is
// decoded, so an error names that line.

// docScanner delimits JSON values in a stream, counting lines.
type docScanner struct {
	br   *bufio.Reader
	line int64 // the line of the next byte, 1-based
	buf  []byte
}

// errTruncated is a record cut off by the end of the file.
var errTruncated = errors.New("the file ends inside this record")

// eachDocument calls fn with each record of JSON documents and the line it begins on: each
// element of one top-level array, or each of the values that follow one another.
func eachDocument(br *bufio.Reader, fn func(raw []byte, line int64) error) error {
	s := &docScanner{br: br, line: 1}
	b, err := s.skipSpace()
	if err != nil {
		return nil // nothing but white space
	}
	if b != '[' {
		return s.values(fn)
	}
	s.br.ReadByte()
	return s.array(fn)
}

// values reads values one after another until the end of the input.
func (s *docScanner) values(fn func(raw []byte, line int64) error) error {
	for {
		if _, err := s.skipSpace(); err != nil {
			return nil
		}
		raw, line, err := s.value()
		if err != nil {
			return err
		}
		if err := fn(raw, line); err != nil {
			return err
		}
	}
}

// array reads the elements of an array whose '[' is read, then wants nothing but white space.
func (s *docScanner) array(fn func(raw []byte, line int64) error) error {
	b, err := s.skipSpace()
	if err == nil && b == ']' {
		s.br.ReadByte()
		return s.end()
	}
	for {
		if err != nil {
			return fmt.Errorf("line %d: the file ends inside the array (no closing ']')", s.line)
		}
		raw, line, verr := s.value()
		if verr != nil {
			return verr
		}
		if ferr := fn(raw, line); ferr != nil {
			return ferr
		}
		if b, err = s.skipSpace(); err != nil {
			return fmt.Errorf("line %d: the file ends inside the array (no closing ']')", s.line)
		}
		s.br.ReadByte()
		switch b {
		case ']':
			return s.end()
		case ',':
		default:
			return fmt.Errorf("line %d: want ',' or ']' after the record of line %d, found %q", s.line, line, b)
		}
		_, err = s.skipSpace()
	}
}

// end wants nothing but white space after the array.
func (s *docScanner) end() error {
	if b, err := s.skipSpace(); err == nil {
		return fmt.Errorf("line %d: %q after the array's closing ']'", s.line, b)
	}
	return nil
}

// skipSpace consumes white space and returns the next byte, unread; an error at the end.
func (s *docScanner) skipSpace() (byte, error) {
	for {
		b, err := s.br.ReadByte()
		if err != nil {
			return 0, err
		}
		switch b {
		case '\n':
			s.line++
		case ' ', '\t', '\r':
		default:
			s.br.UnreadByte()
			return b, nil
		}
	}
}

// value reads one record, an object or array from its opening bracket to the matching one
// (strings and their escapes taken into account), and returns it with its first line. A
// top-level value that is not an object is an error, as no log's record is anything else.
func (s *docScanner) value() ([]byte, int64, error) {
	start := s.line
	b, _ := s.br.ReadByte()
	if b != '{' {
		return nil, start, fmt.Errorf("line %d: a record is a JSON object, found %q", start, b)
	}
	s.buf = append(s.buf[:0], b)
	depth, inString, escaped := 1, false, false
	for depth > 0 {
		b, err := s.br.ReadByte()
		if err != nil {
			return nil, start, fmt.Errorf("line %d: %w", start, errTruncated)
		}
		s.buf = append(s.buf, b)
		if len(s.buf) > maxRecord {
			return nil, start, fmt.Errorf("line %d: record longer than %d bytes", start, maxRecord)
		}
		switch {
		case b == '\n':
			s.line++
		case inString && escaped:
			escaped = false
		case inString && b == '\\':
			escaped = true
		case b == '"':
			inString = !inString
		case inString:
		case b == '{' || b == '[':
			depth++
		case b == '}' || b == ']':
			depth--
		}
	}
	return append([]byte(nil), s.buf...), start, nil
}

// onOneLine reports whether a log's first record is a whole JSON value on its first line, so
// the log is JSON lines (read line by line, a bad line lost alone) rather than documents.
func onOneLine(br *bufio.Reader) bool {
	peek, _ := br.Peek(br.Size())
	first := peek
	if i := bytes.IndexByte(peek, '\n'); i >= 0 {
		first = peek[:i]
	}
	s := &docScanner{br: bufio.NewReader(bytes.NewReader(first)), line: 1}
	if _, err := s.skipSpace(); err != nil {
		return true
	}
	_, _, err := s.value()
	return !errors.Is(err, errTruncated) || len(first) == len(peek)
}
