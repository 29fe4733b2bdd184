package jsoncur

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// RawString reads a string and returns its bytes between the quotes, in the input. escaped
// reports that they are not its text: they hold an escape, or bytes that are not UTF-8 (which
// decoding replaces by U+FFFD), so Unquote must decode them. Unescaped raw bytes compare equal
// to a key exactly when the decoded text would.
func (c *Cursor) RawString() (raw []byte, escaped bool) {
	if c.Peek() != '"' {
		c.failAt(c.i, "looking for beginning of string")
		return nil, false
	}
	return c.str()
}

// Text reads a string and returns its text: the input's own bytes when they need no decoding,
// else the text decoded in the same pass into the cursor's scratch buffer, valid until the
// next Text or Unquote.
func (c *Cursor) Text() []byte {
	if c.Peek() != '"' {
		c.failAt(c.i, "looking for beginning of string")
		return nil
	}
	b, start := c.b, c.i+1
	i := asciiRun(b, start)
	if i < len(b) && b[i] == '"' {
		c.i = i + 1
		return b[start:i]
	}
	i, hi := c.run(i, highs)
	if i < 0 {
		return nil
	}
	if b[i] == '\\' {
		return c.textEscaped(start, i, hi)
	}
	c.i = i + 1
	if raw := b[start:i]; hi != 0 || utf8.Valid(raw) {
		return raw
	}
	return c.unquote(b[start:i])
}

// Unquote returns the text of raw bytes from RawString or Key: raw itself unless escaped, else
// decoded into the cursor's scratch buffer, valid until the next Unquote or Text.
func (c *Cursor) Unquote(raw []byte, escaped bool) []byte {
	if escaped {
		return c.unquote(raw)
	}
	return raw
}

func (c *Cursor) unquote(raw []byte) []byte {
	c.buf = AppendUnquoted(c.buf[:0], raw)
	return c.buf
}

// str reads the string whose opening quote is at c.i.
func (c *Cursor) str() (raw []byte, escaped bool) {
	b, start := c.b, c.i+1
	i := asciiRun(b, start)
	if i < len(b) && b[i] == '"' {
		c.i = i + 1
		return b[start:i], false
	}
	return c.strRest(start, i)
}

// strRest goes on with a string from start, its first byte, at i, where it stops being plain
// ASCII or nears the end of the input.
func (c *Cursor) strRest(start, i int) (raw []byte, escaped bool) {
	b := c.b
	i, hi := c.run(i, highs)
	for i >= 0 && b[i] == '\\' {
		escaped = true
		if i = c.escape(i); i >= 0 {
			i, hi = c.run(i, hi)
		}
	}
	if i < 0 {
		return nil, false
	}
	c.i = i + 1
	raw = b[start:i]
	// One UTF-8 check of the whole string, and only when it has a byte above 0x7F.
	return raw, escaped || hi == 0 && !utf8.Valid(raw)
}

// asciiRun returns the index of the first byte at or after i that a string scan must look at
// (quote, backslash, control byte or one above 0x7F), eight bytes a step, or the start of the
// last seven bytes. It is small enough to inline: most strings are short and plain, and end at
// its first stop.
func asciiRun(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if m := special(binary.LittleEndian.Uint64(b[i:]), highs); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	return i
}

// run checks a string's bytes from i up to its closing quote or next backslash and returns
// that byte's index (-1 on error), with hi cleared once it has passed a byte above 0x7F.
func (c *Cursor) run(i int, hi uint64) (int, uint64) {
	b := c.b
	for {
		i = plainRun(b, i, hi)
		if i >= len(b) {
			c.failAt(i, "")
			return -1, hi
		}
		switch ch := b[i]; {
		case ch == '"' || ch == '\\':
			return i, hi
		case ch < 0x20:
			c.failAt(i, "in string literal")
			return -1, hi
		}
		hi = 0 // a byte above 0x7F: from here on UTF-8 is checked once, at the end
		i++
	}
}

// textEscaped decodes a string from seg, its first byte, whose first escape is at i; hi is as
// run returned it for the bytes before.
func (c *Cursor) textEscaped(seg, i int, hi uint64) []byte {
	b, out := c.b, c.buf[:0]
	for {
		if hi == 0 {
			out = appendUTF8(out, b[seg:i])
		} else {
			out = append(out, b[seg:i]...)
		}
		if b[i] == '"' {
			c.i, c.buf = i+1, out
			return out
		}
		r, n := unescape(b[i:])
		if n == 0 {
			c.escape(i) // malformed: escape words the error
			return nil
		}
		out = utf8.AppendRune(out, r)
		seg = i + n
		if i, hi = c.run(seg, highs); i < 0 {
			return nil
		}
	}
}

// escape checks the escape whose backslash is at i and returns the index after it, or -1.
func (c *Cursor) escape(i int) int {
	b := c.b
	if i+1 >= len(b) {
		c.failAt(i+1, "")
		return -1
	}
	switch b[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return i + 2
	case 'u':
		for k := i + 2; k < i+6; k++ {
			if k >= len(b) || !isHex(b[k]) {
				c.failAt(k, `in \u hexadecimal character escape`)
				return -1
			}
		}
		return i + 6
	}
	c.failAt(i+1, "in string escape code")
	return -1
}

func isHex(c byte) bool {
	return c-'0' <= 9 || (c|0x20)-'a' <= 5
}

const ones, highs = 0x0101010101010101, 0x8080808080808080

// plainRun returns the index of the first byte at or after i that a string scan must look at
// (a quote, a backslash, a control byte, and with hi set one above 0x7F), or len(b): eight
// bytes a step, because strings (prompts, ids, contents) are most of what JSON holds.
func plainRun(b []byte, i int, hi uint64) int {
	for ; i+8 <= len(b); i += 8 {
		if m := special(binary.LittleEndian.Uint64(b[i:]), hi); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(b); i++ {
		if ch := b[i]; ch == '"' || ch == '\\' || ch < 0x20 || ch >= 0x80 && hi != 0 {
			return i
		}
	}
	return i
}

// special sets the high bit of the bytes of w (little-endian) that a scan must look at. Only
// the lowest set byte is exact (a borrow can mark bytes above it), which is all plainRun uses.
func special(w, hi uint64) uint64 {
	q, s := w^(ones*'"'), w^(ones*'\\')
	return ((q-ones)&^q|(s-ones)&^s|(w-ones*0x20)&^w)&highs | w&hi
}

// AppendUnquoted appends the text of a string's raw bytes (from RawString or Key) to dst,
// decoded as encoding/json decodes strings: escapes, surrogate pairs, and U+FFFD for each byte
// that is not UTF-8 and for each lone surrogate. A malformed escape (in bytes no cursor
// returned) is kept as it is.
func AppendUnquoted(dst, raw []byte) []byte {
	for {
		k := bytes.IndexByte(raw, '\\')
		if k < 0 {
			return appendUTF8(dst, raw)
		}
		dst = appendUTF8(dst, raw[:k])
		r, n := unescape(raw[k:])
		if n == 0 {
			dst, n = append(dst, '\\'), 1
		} else {
			dst = utf8.AppendRune(dst, r)
		}
		raw = raw[k+n:]
	}
}

// unescape decodes the escape at the start of e, returning its rune and length (0 if malformed).
func unescape(e []byte) (rune, int) {
	if len(e) < 2 {
		return 0, 0
	}
	switch e[1] {
	case '"', '\\', '/':
		return rune(e[1]), 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		r := hex4(e)
		if r < 0 {
			return 0, 0
		}
		if !utf16.IsSurrogate(r) {
			return r, 6
		}
		// A pair makes one rune; anything else is U+FFFD, and what follows is read on its own.
		if len(e) >= 12 {
			if dec := utf16.DecodeRune(r, hex4(e[6:])); dec != utf8.RuneError {
				return dec, 12
			}
		}
		return utf8.RuneError, 6
	}
	return 0, 0
}

// hex4 reads a \uXXXX escape at the start of e, or returns -1.
func hex4(e []byte) rune {
	if len(e) < 6 || e[0] != '\\' || e[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range e[2:6] {
		switch {
		case c-'0' <= 9:
			c -= '0'
		case (c|0x20)-'a' <= 5:
			c = (c | 0x20) - 'a' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// appendUTF8 appends s with each byte that is not part of valid UTF-8 replaced by U+FFFD.
func appendUTF8(dst, s []byte) []byte {
	if utf8.Valid(s) {
		return append(dst, s...)
	}
	for len(s) > 0 {
		r, size := utf8.DecodeRune(s)
		if r == utf8.RuneError && size == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, s[:size]...)
		}
		s = s[size:]
	}
	return dst
}
