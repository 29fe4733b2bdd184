package checks

import (
	"bytes"
	"strings"
	"testing"
)

// TestQuoteBounds: a long answer is quoted cut at maxQuote bytes, saying how many more there
// were; a short one whole.
func TestQuoteBounds(t *testing.T) {
	if q := quote(bytes.Repeat([]byte("é"), 200)); len(q) > 2*maxQuote || !strings.HasSuffix(q, "(240 more bytes)") {
		t.Errorf("quote: %s", q)
	}
	if q := quote([]byte(`a"b`)); q != `"a\"b"` {
		t.Errorf("quote: %s", q)
	}
}
