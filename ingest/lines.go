package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxLineBytes bounds one line so a file without newlines cannot exhaust memory.
const maxLineBytes = 64 << 20

// lineReader yields a text file's lines with their 1-based numbers: a UTF-8 byte-order mark at
// the start is dropped, "\r\n" endings are accepted, and the last line needs no newline.
type lineReader struct {
	name  string
	br    *bufio.Reader
	line  int64
	long  []byte // holds a line longer than the bufio buffer
	first bool
}

func newLineReader(br *bufio.Reader, name string) *lineReader {
	return &lineReader{name: name, br: br, first: true}
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// next returns the next line without its ending; the slice is valid until the following call.
func (l *lineReader) next() ([]byte, error) {
	b, err := l.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		l.long = append(l.long[:0], b...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if len(l.long) > maxLineBytes {
				return nil, fmt.Errorf("%s:%d: line longer than %d bytes", l.name, l.line+1, maxLineBytes)
			}
			b, err = l.br.ReadSlice('\n')
			l.long = append(l.long, b...)
		}
		b = l.long
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s:%d: %w", l.name, l.line+1, err)
	}
	if len(b) == 0 && errors.Is(err, io.EOF) {
		return nil, io.EOF
	}
	l.line++
	if l.first {
		l.first = false
		b = bytes.TrimPrefix(b, utf8BOM)
	}
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b, nil
}

// isBlank reports whether a line holds only spaces and tabs.
func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}
