package jsoncur

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCursor holds the cursor to encoding/json on any input: a walk of every value with the
// typed reads (tree) and a Skip of the whole text both accept exactly what encoding/json
// accepts, fail with its message at its offset, and the walk gives the values encoding/json's
// UseNumber decoding gives; each string's Text equals its unquoted raw bytes, and each
// number's Int64 and Uint64 agree with strconv on its text.
func FuzzCursor(f *testing.F) {
	for _, s := range cursorCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkCursor(t, data) })
}

func checkCursor(t *testing.T, data []byte) {
	t.Helper()
	c := New(data)
	got := tree(t, &c)
	err := c.End()
	s := New(data)
	s.Skip()
	serr := s.End()
	var want any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	derr := d.Decode(&want)
	jerr := json.Unmarshal(data, new(json.RawMessage)) // the syntax error alone
	if !sameError(err, jerr) || !sameError(serr, jerr) {
		t.Fatalf("%q: walk %v, skip %v, encoding/json %v", data, err, serr, jerr)
	}
	if err == nil && (derr != nil || !reflect.DeepEqual(got, want)) {
		t.Fatalf("%q: walk %#v, encoding/json %#v (%v)", data, got, want, derr)
	}
}

// sameError: both nil, or the same message with encoding/json's offset one past the fault (it
// counts the faulty byte). At an unexpected end both give the input's length; encoding/json
// then feeds its scanner a space, so inside a number, literal or escape it blames ' '.
func sameError(err, jerr error) bool {
	var se *SyntaxError
	var je *json.SyntaxError
	if err == nil || jerr == nil {
		return err == nil && jerr == nil
	}
	if !errors.As(err, &se) || !errors.As(jerr, &je) {
		return false
	}
	if se.Msg == eof {
		return int64(se.Offset) == je.Offset && (je.Error() == eof || strings.HasPrefix(je.Error(), "invalid character ' ' "))
	}
	return se.Msg == je.Error() && int64(se.Offset)+1 == je.Offset
}

const eof = "unexpected end of JSON input"

// tree reads the value at the cursor with the typed reads, as encoding/json would build it.
func tree(t *testing.T, c *Cursor) any {
	switch c.Peek() {
	case '{':
		m := map[string]any{}
		for more := c.Object(); more; more = c.NextMember() {
			kc := *c // KeyIn must find what a lookup of Key's decoded text finds
			in := kc.KeyIn(&fuzzKeys)
			raw, escaped := c.Key()
			k := checkedText(t, c, raw, escaped)
			if fmt.Sprint(kc.Err()) != fmt.Sprint(c.Err()) || kc.Offset() != c.Offset() || c.Err() == nil && in != slices.Index(fuzzKeyList, k) {
				t.Fatalf("key %q: KeyIn %d ends at %d (%v), Key ends at %d (%v)", k, in, kc.Offset(), kc.Err(), c.Offset(), c.Err())
			}
			m[k] = tree(t, c)
		}
		return m
	case '[':
		a := []any{}
		for more := c.Array(); more; more = c.NextElem() {
			a = append(a, tree(t, c))
		}
		return a
	case '"':
		tc := *c // Text's one pass must match RawString then Unquote, error and end included
		text := string(tc.Text())
		raw, escaped := c.RawString()
		s := checkedText(t, c, raw, escaped)
		if fmt.Sprint(tc.Err()) != fmt.Sprint(c.Err()) || tc.Offset() != c.Offset() || c.Err() == nil && text != s {
			t.Fatalf("raw %q: Text %q ends at %d (%v), RawString %q ends at %d (%v)", raw, text, tc.Offset(), tc.Err(), s, c.Offset(), c.Err())
		}
		return s
	case 't', 'f':
		return c.Bool()
	case 'n':
		c.Null()
		return nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return checkedNumber(t, c)
	}
	c.Skip() // fails, as encoding/json does here
	return nil
}

// checkedText decodes raw both ways, and holds escaped to its meaning: set exactly when the
// raw bytes are not the text.
func checkedText(t *testing.T, c *Cursor, raw []byte, escaped bool) string {
	text := string(c.Unquote(raw, escaped))
	if c.Err() != nil {
		return ""
	}
	if again := string(AppendUnquoted(nil, raw)); again != text {
		t.Fatalf("raw %q: Unquote %q, AppendUnquoted %q", raw, text, again)
	}
	if escaped == (text == string(raw) && utf8.ValidString(text)) {
		t.Fatalf("raw %q (text %q): escaped %v", raw, text, escaped)
	}
	return text
}

// checkedNumber reads the number three ways (copies of the cursor) and holds Int64 and Uint64
// to strconv on Number's text.
func checkedNumber(t *testing.T, c *Cursor) any {
	ic, uc := *c, *c
	text := c.Number()
	i, iok := ic.Int64()
	u, uok := uc.Uint64()
	if c.Err() != nil {
		return nil
	}
	if ic.Offset() != c.Offset() || uc.Offset() != c.Offset() {
		t.Fatalf("%q: Number ends at %d, Int64 at %d, Uint64 at %d", text, c.Offset(), ic.Offset(), uc.Offset())
	}
	wi, err := strconv.ParseInt(string(text), 10, 64)
	if iok != (err == nil) || iok && i != wi {
		t.Fatalf("%q: Int64 %d %v, strconv %d %v", text, i, iok, wi, err)
	}
	wu, err := strconv.ParseUint(string(text), 10, 64)
	if uok != (err == nil) || uok && u != wu {
		t.Fatalf("%q: Uint64 %d %v, strconv %d %v", text, u, uok, wu, err)
	}
	return json.Number(text)
}

// fuzzKeyList has keys KeyIn matches in place and keys it must not (quote, backslash,
// control byte, invalid UTF-8), which only a decoded key can equal, if any.
var fuzzKeyList = []string{"a", "ab", "timestamp", "", "é", "a\"b", "a\\b", "a\nb", "\xff", "\ufffd"}

var fuzzKeys = NewKeys(fuzzKeyList...)

var cursorCases = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1.5e+10`, `-12.5E-3`, `true`, `false`, `null`, ` {"a" : [1, 2 ,{"b":null}] } `,
	`{"a":1,"a":2}`, `{"a":"x\"y\\z\/\b\f\n\r\t"}`, `"\u00e9\u4e2d\ud83d\ude00"`, `"\ud800"`, `"\udc00x"`,
	`"\ud800\u0041"`, `"\ud800\uZZZZ"`, `"\ud800\ud800\udc00"`, "\"\xff\xfe ok \xe2\x82\"", "\"caf\xc3\xa9\"", "\"a\\n\xffb\"",
	`[9223372036854775807, -9223372036854775808, 9223372036854775808, -9223372036854775809]`,
	`[18446744073709551615, 18446744073709551616, 99999999999999999999, 100000000000000000000, -0, 0.0, 1e2]`,
	`"0123456789abcdef0123456789abcdef"`, "\"0123456789abcd\xff0123456789\"", "\"01234567\x80\"", "\"0123456\x7f0123456789\"",
	"\"0123456789\\\"abcdef caf\xc3\xa9 0123456789 \xe2\x82 01234567\"", "\"0123456789abcdef\x01\"",
	// Rejected ones, each with encoding/json's message and offset.
	``, ` `, `{`, `}`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `01`, `-`, `-x`, `1.`, `1.x`, `1e`, `1e+`, `.5`, `+1`,
	`{} x`, `{} ]`, `[1] [2]`, `"abc`, "\"a\tb\"", `"\x"`, `"\u12"`, `"\u12x4"`, `"\`, `tru`, `trux`, `nul`, `fals`,
	`[1 2]`, "\xef\xbb\xbf{}", `NaN`, `{"a":}`, `{"a":1 "b":2}`, `[}`, `{]`, "\x00", `"\ud800\u"`,
	// Keys for KeyIn: in place, escaped, spaced, and ones only decoding can match.
	`{"a":1,"ab" :2,"timestamp":3,"\u0061":4,"a\"b":5,"a\\b":6,"":7,"\u00e9":8,"é":9,"\xff":10,"abc":11}`,
	"{\"\xff\":1,\"a\\nb\":3,\"\xef\xbf\xbd\":4,\"a\\u0022b\":5}", `{"a"`, `{"ab"`, `{"a" x`,
}
