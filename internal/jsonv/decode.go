package jsonv

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth is encoding/json's nesting limit; deeper input is an error, not a stack overflow.
const maxDepth = 10000

// SyntaxError is malformed JSON, with the byte offset where it was found.
type SyntaxError struct {
	Offset int
	msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s at offset %d", e.msg, e.Offset) }

// Decode parses data as exactly one JSON value, with surrounding whitespace allowed.
func Decode(data []byte) (any, error) {
	d := decoder{b: data}
	d.ws()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.ws()
	if d.i < len(d.b) {
		return nil, d.fail("invalid character after the top-level value")
	}
	return v, nil
}

type decoder struct {
	b   []byte
	i   int
	buf []byte // unescaping scratch
	// high tells that the string being scanned has a byte above 0x7F so far.
	high bool
}

func (d *decoder) fail(msg string) error { return &SyntaxError{Offset: d.i, msg: msg} }

func (d *decoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (any, error) {
	if d.i >= len(d.b) {
		return nil, d.fail("unexpected end of JSON input")
	}
	switch c := d.b[d.i]; {
	case c == '{':
		if depth >= maxDepth {
			return nil, d.fail("exceeded max depth")
		}
		return d.object(depth + 1)
	case c == '[':
		if depth >= maxDepth {
			return nil, d.fail("exceeded max depth")
		}
		return d.array(depth + 1)
	case c == '"':
		return d.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	default:
		return nil, d.fail("invalid character " + strconv.QuoteRune(rune(c)) + " looking for beginning of value")
	}
}

func (d *decoder) object(depth int) (any, error) {
	d.i++ // {
	m := map[string]any{}
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return m, nil
	}
	for {
		if d.i >= len(d.b) {
			return nil, d.fail("unexpected end of JSON input")
		}
		if d.b[d.i] != '"' {
			return nil, d.fail("invalid character looking for beginning of object key string")
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		d.ws()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, d.fail("expected ':' after object key")
		}
		d.i++
		d.ws()
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		m[k] = v // a repeated key keeps its last value, as encoding/json does
		d.ws()
		if d.i >= len(d.b) {
			return nil, d.fail("unexpected end of JSON input")
		}
		switch d.b[d.i] {
		case ',':
			d.i++
			d.ws()
		case '}':
			d.i++
			return m, nil
		default:
			return nil, d.fail("invalid character after object key:value pair")
		}
	}
}

func (d *decoder) array(depth int) (any, error) {
	d.i++ // [
	a := []any{}
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return a, nil
	}
	for {
		d.ws()
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		d.ws()
		if d.i >= len(d.b) {
			return nil, d.fail("unexpected end of JSON input")
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			return a, nil
		default:
			return nil, d.fail("invalid character after array element")
		}
	}
}

func (d *decoder) literal(word string) error {
	if len(d.b)-d.i < len(word) || string(d.b[d.i:d.i+len(word)]) != word {
		return d.fail("invalid literal (expecting " + word + ")")
	}
	d.i += len(word)
	return nil
}

// number checks the grammar -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)? and keeps the text.
func (d *decoder) number() (any, error) {
	start := d.i
	if d.b[d.i] == '-' {
		d.i++
	}
	digits := func() int {
		n := 0
		for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if d.i < len(d.b) && d.b[d.i] == '0' {
		d.i++
	} else if digits() == 0 {
		return nil, d.fail("invalid number: no digits")
	}
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return nil, d.fail("invalid number: no digits after the decimal point")
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return nil, d.fail("invalid number: no digits in the exponent")
		}
	}
	return json.Number(d.b[start:d.i]), nil
}

// stops marks the bytes a string scan stops at: the closing quote, a backslash and the control
// characters JSON forbids inside strings.
var stops = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// skipPlain advances d.i past the bytes no string scan needs to look at, eight at a time
// while they are plain ASCII, and notes in d.high whether it passed a byte above 0x7F (so a
// string that has none needs no UTF-8 check).
func (d *decoder) skipPlain() {
	i, b := d.i, d.b
	for {
		for i+8 <= len(b) {
			w := binary.LittleEndian.Uint64(b[i:])
			if special(w) != 0 {
				break
			}
			i += 8
		}
		// Byte by byte to the next stop, or past the next eight bytes if none is there.
		end := min(i+8, len(b))
		for i < end && !stops[b[i]] {
			if b[i] >= 0x80 {
				d.high = true
			}
			i++
		}
		if i < end || i == len(b) {
			d.i = i
			return
		}
	}
}

// special has the high bit set in the bytes of w that are a quote, a backslash, below 0x20 or
// above 0x7F, and in none when w has no such byte (it may mark bytes after such a byte too).
func special(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	return zero(w^(ones*'"')) | zero(w^(ones*'\\')) | (w-ones*0x20)&^w&highs | w&highs
}

// str parses a string at d.i (the opening quote). The plain case (no escapes, valid UTF-8) is
// one scan and one copy.
func (d *decoder) str() (string, error) {
	d.i++ // "
	start := d.i
	d.high = false
	d.skipPlain()
	if d.i >= len(d.b) {
		return "", d.fail("unexpected end of JSON input")
	}
	switch c := d.b[d.i]; {
	case c == '"':
		s := d.b[start:d.i]
		d.i++
		if !d.high || utf8.Valid(s) {
			return string(s), nil
		}
		return string(d.fixUTF8(d.buf[:0], s)), nil
	case c == '\\':
		return d.strEscaped(start)
	default:
		return "", d.fail("invalid character in string literal")
	}
}

// strEscaped finishes a string that holds escapes, from its start.
func (d *decoder) strEscaped(start int) (string, error) {
	out := d.buf[:0]
	seg := start // start of the not yet copied raw run
	for {
		d.skipPlain()
		if d.i >= len(d.b) {
			break
		}
		switch c := d.b[d.i]; {
		case c == '"':
			out = d.fixUTF8(out, d.b[seg:d.i])
			d.i++
			d.buf = out[:0]
			return string(out), nil
		case c < 0x20:
			return "", d.fail("invalid character in string literal")
		}
		out = d.fixUTF8(out, d.b[seg:d.i])
		d.i++ // backslash
		if d.i >= len(d.b) {
			return "", d.fail("unexpected end of JSON input")
		}
		switch e := d.b[d.i]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := d.hex4(d.i + 1)
			if !ok {
				return "", d.fail("invalid character in \\u hexadecimal character escape")
			}
			d.i += 4
			if utf16.IsSurrogate(r) {
				// A valid pair makes one rune; anything else is U+FFFD, as encoding/json does.
				r2, ok := rune(-1), false
				if d.i+2 < len(d.b) && d.b[d.i+1] == '\\' && d.b[d.i+2] == 'u' {
					r2, ok = d.hex4(d.i + 3)
				}
				if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
					d.i += 6
					r = dec
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", d.fail("invalid character in string escape code")
		}
		d.i++
		seg = d.i
		d.high = false // the next run's own: fixUTF8 checks only runs with a byte above 0x7F
	}
	return "", d.fail("unexpected end of JSON input")
}

// hex4 reads four hex digits at i.
func (d *decoder) hex4(i int) (rune, bool) {
	if i+4 > len(d.b) {
		return 0, false
	}
	var r rune
	for _, c := range d.b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}

// fixUTF8 appends s with each byte that is not part of valid UTF-8 replaced by U+FFFD, as
// encoding/json decodes it.
func (d *decoder) fixUTF8(out, s []byte) []byte {
	if !d.high || utf8.Valid(s) {
		return append(out, s...)
	}
	for len(s) > 0 {
		r, size := utf8.DecodeRune(s)
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, s[:size]...)
		}
		s = s[size:]
	}
	return out
}
