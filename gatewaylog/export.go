package gatewaylog

import (
	"bufio"
	"bytes"
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
