package gatewaylog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// peekNonSpace is the first byte of br that is not white space, left unread.
func peekNonSpace(br *bufio.Reader) (byte, error) {
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		br.Discard(3) // a byte-order mark, as Windows tools write
	}
	for {
		b, err := br.Peek(1)
		if err != nil {
			return 0, err
		}
		if b[0] != ' ' && b[0] != '\t' && b[0] != '\r' && b[0] != '\n' {
			return b[0], nil
		}
		if _, err := br.ReadByte(); err != nil {
			return 0, err
		}
	}
}

// eachElement calls fn with each element of one JSON array (an export of the source's
// records: Helicone's export tool writes one with --format json), numbered from 1 as "lines".
func eachElement(src io.Reader, fn func(raw []byte, line int64) error) error {
	d := json.NewDecoder(src)
	if _, err := d.Token(); err != nil {
		return fmt.Errorf("record 1: %w", err)
	}
	var n int64
	for d.More() {
		n++
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			return fmt.Errorf("record %d: %w", n, err)
		}
		if err := fn(raw, n); err != nil {
			return err
		}
	}
	return nil
}
