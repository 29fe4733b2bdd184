package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
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

// maxDocument bounds one record of JSON documents, as maxLineBytes bounds a line.
const maxDocument = maxLineBytes

// EachDocument calls fn with each record of JSON documents and the line it begins on: each
// element of one top-level array, or each of the values that follow one another. A record
// is handed over as it is in the file (its inner white space kept), valid until fn returns.
func EachDocument(br *bufio.Reader, fn func(raw []byte, line int64) error) error {
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
		if len(s.buf) > maxDocument {
			return nil, start, fmt.Errorf("line %d: record longer than %d bytes", start, maxDocument)
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
	return s.buf, start, nil
}

// IsDocuments reports whether a JSON log is documents rather than JSON lines: one array, or a
// first record that does not end on its first line. JSON lines are read a line at a time, so
// that a bad line is lost alone; documents by EachDocument.
func IsDocuments(br *bufio.Reader) bool {
	return peekNonSpace(br) == '[' || !onOneLine(br)
}

// peekNonSpace is the first byte of br that is not white space (or a byte-order mark), left
// unread; 0 at the end.
func peekNonSpace(br *bufio.Reader) byte {
	if bom, _ := br.Peek(3); bytes.Equal(bom, utf8BOM) {
		br.Discard(3)
	}
	for {
		b, err := br.Peek(1)
		if err != nil {
			return 0
		}
		if b[0] != ' ' && b[0] != '\t' && b[0] != '\r' && b[0] != '\n' {
			return b[0]
		}
		br.Discard(1)
	}
}

// onOneLine reports whether a log's first record is a whole JSON value on its first line.
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

// DocumentLines reads JSON documents as JSON lines for a line reader: each record on the line
// it begins on in the file (preceded by as many blank lines as it takes), its own line breaks
// made spaces (a JSON value holds none but white space between its tokens), so that the line
// reader's errors name the file's lines. Errors of the documents' structure end the stream,
// named by path.
func DocumentLines(br *bufio.Reader, path string) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		line := int64(1)
		err := EachDocument(br, func(raw []byte, at int64) error {
			for ; line < at; line++ {
				if _, err := pw.Write([]byte{'\n'}); err != nil {
					return err
				}
			}
			for i, b := range raw {
				if b == '\n' || b == '\r' {
					raw[i] = ' '
				}
			}
			_, err := pw.Write(append(raw, '\n'))
			line++
			return err
		})
		if err != nil && !errors.Is(err, io.ErrClosedPipe) {
			err = fmt.Errorf("%s: %w", path, err)
		}
		pw.CloseWithError(err)
	}()
	return pr
}
