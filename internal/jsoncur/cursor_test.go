package jsoncur

import (
	"slices"
	"strings"
	"testing"
)

func TestCursorMatchesEncodingJSON(t *testing.T) {
	for _, s := range cursorCases {
		checkCursor(t, []byte(s))
	}
	for _, n := range []int{MaxDepth, MaxDepth + 1} {
		checkCursor(t, []byte(strings.Repeat("[", n)+strings.Repeat("]", n)))
		checkCursor(t, []byte(strings.Repeat(`{"a":`, n)+"1"+strings.Repeat("}", n)))
	}
}

// TestErrorSticks: after the first error every read finds nothing, loops end, and the error
// keeps the first fault's offset.
func TestErrorSticks(t *testing.T) {
	c := New([]byte(`{"a": [1, 2,, 3], "b": {,}}`))
	n := 0
	for more := c.Object(); more; more = c.NextMember() {
		c.Key()
		c.Skip()
		if n++; n > 10 {
			t.Fatal("member loop did not end after an error")
		}
	}
	c.Skip()
	if raw, _ := c.RawString(); raw != nil || c.Peek() != 0 {
		t.Fatalf("reads after an error found %q, next byte %q", raw, c.Peek())
	}
	se, ok := c.End().(*SyntaxError)
	if !ok || se.Offset != 12 || se.Msg != "invalid character ',' looking for beginning of value" {
		t.Fatalf("got %v, want the fault at offset 12", c.End())
	}
}

// TestUnquoteScratch: unescaped bytes are the input's own; escaped ones are decoded into the
// scratch buffer, reused by the next call.
func TestUnquoteScratch(t *testing.T) {
	in := []byte(`["plain", "a\nb", "c\u00e9"]`)
	c := New(in)
	var texts []string
	for more := c.Array(); more; more = c.NextElem() {
		raw, escaped := c.RawString()
		text := c.Unquote(raw, escaped)
		if !escaped && &text[0] != &in[2] {
			t.Error("an unescaped string was copied")
		}
		texts = append(texts, string(text))
	}
	if err := c.End(); err != nil || strings.Join(texts, "|") != "plain|a\nb|c\u00e9" {
		t.Fatalf("got %q, %v", texts, err)
	}
	if got := string(AppendUnquoted(nil, []byte(`bad \q and \u12 end\`))); got != `bad \q and \u12 end\` {
		t.Fatalf("malformed escapes: %q", got)
	}
}

func TestAdvance(t *testing.T) {
	c := New([]byte(` [1,2] , 3`))
	if rest := c.Rest(); string(rest[:5]) != "[1,2]" {
		t.Fatalf("Rest %q", rest)
	}
	c.Advance(5)
	if !c.NextElem() || string(c.Number()) != "3" {
		t.Fatal("reads after Advance")
	}
	c.Advance(100)
	if c.Offset() != 10 || c.Peek() != 0 {
		t.Fatalf("Advance past the end: offset %d", c.Offset())
	}
}

// TestKeyIn: plain keys match in place, escaped and spaced ones after decoding, and a key with
// bytes that are not UTF-8 matches what decoding makes of them (U+FFFD), never its raw bytes.
func TestKeyIn(t *testing.T) {
	c := New([]byte("{\"a\":1, \"\\u0061\":2, \"ab\" :3, \"x\":4, \"a\\\"b\":5, \"\xff\":6, \"\\ufffd\":7}"))
	var got []int
	for more := c.Object(); more; more = c.NextMember() {
		got = append(got, c.KeyIn(&fuzzKeys))
		c.Skip()
	}
	want := []int{0, 0, 1, -1, 5, 9, 9}
	if err := c.End(); err != nil || !slices.Equal(got, want) {
		t.Fatalf("got %v, %v; want %v", got, err, want)
	}
}
