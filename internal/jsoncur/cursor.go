package jsoncur

import "strconv"

// MaxDepth is encoding/json's nesting limit: deeper input is an error, never a stack overflow.
const MaxDepth = 10000

// SyntaxError is input that is not JSON: encoding/json's message, and the byte offset of the
// fault (len of the input when it ended too early). Two documented differences: encoding/json's
// own Offset counts the bytes read including the faulty one, one more than this; and at an end
// inside a number, literal or escape it blames a space ("invalid character ' ' in numeric
// literal", its scanner is fed one at the end) where this says "unexpected end of JSON input".
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return e.Msg + " at offset " + strconv.Itoa(e.Offset) }

// Cursor reads one JSON text. Every read checks what it passes over as strictly as
// encoding/json; a typed read (RawString, Text, Int64, Bool, Object, ...) of a value of another
// kind is an error too, so a walker that takes several kinds dispatches on Peek first. The
// first error sticks and moves the cursor to the end of the input, so later reads find
// nothing, every member or element loop ends, and no input can make a walker loop forever;
// Err and End return it.
type Cursor struct {
	b     []byte
	i     int
	depth int
	err   *SyntaxError
	buf   []byte // Unquote's scratch
}

// New returns a cursor at the start of b.
func New(b []byte) Cursor { return Cursor{b: b} }

// Reset starts the cursor over on b, keeping its scratch buffer.
func (c *Cursor) Reset(b []byte) { c.b, c.i, c.depth, c.err = b, 0, 0, nil }

// Err returns the first error, nil when there is none.
func (c *Cursor) Err() error {
	if c.err == nil {
		return nil
	}
	return c.err
}

// Offset is the cursor's position in the input.
func (c *Cursor) Offset() int { return c.i }

// fail records the first error and moves to the end of the input.
func (c *Cursor) fail(at int, msg string) {
	if c.err == nil {
		c.err = &SyntaxError{Offset: at, Msg: msg}
	}
	c.i = len(c.b)
}

// failAt reports the byte at i as unexpected in context (worded as encoding/json words it),
// or the end of the input when i is past it.
func (c *Cursor) failAt(i int, context string) {
	if i >= len(c.b) {
		c.fail(len(c.b), "unexpected end of JSON input")
		return
	}
	c.fail(i, "invalid character "+quoteChar(c.b[i])+" "+context)
}

// quoteChar is encoding/json's formatting of a byte in its messages.
func quoteChar(c byte) string {
	switch c {
	case '\'':
		return `'\''`
	case '"':
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}

// wsMask has the bits of JSON's four whitespace bytes, all below 64.
const wsMask = 1<<' ' | 1<<'\t' | 1<<'\n' | 1<<'\r'

// isWS reports JSON whitespace with one comparison for the usual byte above ' '.
func isWS(ch byte) bool { return ch <= ' ' && uint64(1)<<ch&wsMask != 0 }

// ws skips whitespace. It and Peek are small enough to inline, which is worth more than
// keeping the position in a register: most values have no whitespace before them.
func (c *Cursor) ws() {
	for c.i < len(c.b) && isWS(c.b[c.i]) {
		c.i++
	}
}

// Peek skips whitespace and returns the next byte without consuming it, which tells what kind
// of value follows ('{', '[', '"', 't', 'f', 'n', '-' or a digit); 0 at the end of the input
// and after an error.
func (c *Cursor) Peek() byte {
	for ; c.i < len(c.b); c.i++ {
		if ch := c.b[c.i]; !isWS(ch) {
			return ch
		}
	}
	return 0
}

// End checks that nothing but whitespace follows the value read, and returns the first error.
func (c *Cursor) End() error {
	c.ws()
	if c.i < len(c.b) {
		c.failAt(c.i, "after top-level value")
	}
	return c.Err()
}

// Rest returns the input from the next value on, for a walker's own fast path over one value
// (ingest's hash arrays); Advance then moves past the n bytes that path read. Such a path must
// accept only what the cursor would, and hand anything else back to the cursor's reads.
func (c *Cursor) Rest() []byte {
	c.ws()
	return c.b[c.i:]
}

// Advance moves the cursor n bytes on (at most to the end of the input); see Rest.
func (c *Cursor) Advance(n int) { c.i += min(max(n, 0), len(c.b)-c.i) }

// Object consumes the '{' of the object at the cursor and reports whether a member follows
// (false for {} and on error). Each member is a Key, exactly one value read, then NextMember:
//
//	for more := c.Object(); more; more = c.NextMember() {
//		key, escaped := c.Key()
//		... one read of the value: Skip, RawString, Int64, Object, ...
//	}
func (c *Cursor) Object() bool {
	if c.Peek() != '{' {
		c.failAt(c.i, "looking for beginning of object")
		return false
	}
	return c.enter('}')
}

// Array consumes the '[' of the array at the cursor and reports whether an element follows
// (false for [] and on error). Each element is one value read, then NextElem.
func (c *Cursor) Array() bool {
	if c.Peek() != '[' {
		c.failAt(c.i, "looking for beginning of array")
		return false
	}
	return c.enter(']')
}

func (c *Cursor) enter(closing byte) bool {
	if c.depth++; c.depth > MaxDepth {
		c.failAt(c.i, "exceeded max depth")
		return false
	}
	c.i++
	c.ws()
	if c.i < len(c.b) && c.b[c.i] == closing {
		c.i++
		c.depth--
		return false
	}
	return true
}

// NextMember follows a member's value: it consumes the ',' before another member (true) or the
// object's closing '}' (false).
func (c *Cursor) NextMember() bool { return c.next('}', "after object key:value pair") }

// NextElem follows an element: it consumes the ',' before another element (true) or the array's
// closing ']' (false).
func (c *Cursor) NextElem() bool { return c.next(']', "after array element") }

func (c *Cursor) next(closing byte, context string) bool {
	c.ws()
	if c.i < len(c.b) {
		switch c.b[c.i] {
		case ',':
			c.i++
			return true
		case closing:
			c.i++
			c.depth--
			return false
		}
	}
	c.failAt(c.i, context)
	return false
}

// Key reads a member's key and the ':' after it, leaving the cursor at the value; raw and
// escaped are as RawString returns them.
func (c *Cursor) Key() (raw []byte, escaped bool) {
	c.ws()
	if c.i >= len(c.b) || c.b[c.i] != '"' {
		c.failAt(c.i, "looking for beginning of object key string")
		return nil, false
	}
	raw, escaped = c.str()
	c.colon()
	return raw, escaped
}

// Skip reads one value of any kind.
func (c *Cursor) Skip() {
	switch c.Peek() {
	case '"':
		c.str()
	case '{':
		for more := c.Object(); more; more = c.NextMember() {
			c.Key()
			c.Skip()
		}
	case '[':
		for more := c.Array(); more; more = c.NextElem() {
			c.Skip()
		}
	case 't':
		c.literal("true")
	case 'f':
		c.literal("false")
	case 'n':
		c.literal("null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		c.num()
	default:
		c.failAt(c.i, "looking for beginning of value")
	}
}

// Bool reads true or false.
func (c *Cursor) Bool() bool {
	switch c.Peek() {
	case 't':
		return c.literal("true")
	case 'f':
		c.literal("false")
		return false
	}
	c.failAt(c.i, "looking for beginning of boolean")
	return false
}

// Null reads null.
func (c *Cursor) Null() {
	if c.Peek() != 'n' {
		c.failAt(c.i, "looking for beginning of null")
		return
	}
	c.literal("null")
}

// literal consumes word, whose first byte the caller has seen, and reports whether it was there.
func (c *Cursor) literal(word string) bool {
	if len(c.b)-c.i >= len(word) && string(c.b[c.i:c.i+len(word)]) == word {
		c.i += len(word)
		return true
	}
	for k := 1; k < len(word); k++ {
		if j := c.i + k; j >= len(c.b) || c.b[j] != word[k] {
			c.failAt(j, "in literal "+word+" (expecting "+quoteChar(word[k])+")")
			return false
		}
	}
	c.failAt(c.i, "looking for beginning of value") // word[0] was not there: a caller's slip
	return false
}
