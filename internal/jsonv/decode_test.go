package jsonv

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/llm-replay/replay/internal/jsoncur"
)

// reference decodes data as encoding/json does: accepted exactly when json.Valid says so (one
// value, whitespace around it), values as Decoder.UseNumber gives them.
func reference(data []byte) (any, bool) {
	if !json.Valid(data) {
		return nil, false
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

// check holds Decode to the reference on one input.
func check(t *testing.T, data []byte) {
	t.Helper()
	want, ok := reference(data)
	got, err := Decode(data)
	switch {
	case ok && err != nil:
		t.Fatalf("%q: encoding/json accepts it, Decode says %v", data, err)
	case !ok && err == nil:
		t.Fatalf("%q: encoding/json rejects it, Decode gives %#v", data, got)
	case ok && !reflect.DeepEqual(got, want):
		t.Fatalf("%q: Decode gives %#v, encoding/json %#v", data, got, want)
	}
}

var cases = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1.5e+10`, `-12.5E-3`, `true`, `false`, `null`, ` {"a" : [1, 2 ,{"b":null}] } `,
	`{"a":1,"a":2}`, `{"a":"x\"y\\z\/\b\f\n\r\t"}`, `"\u00e9\u4e2d\ud83d\ude00"`, `"\ud800"`, `"\udc00x"`,
	`"\ud800\u0041"`, `"\ud800\uZZZZ"`, "\"\xff\xfe ok \xe2\x82\"", "\"caf\xc3\xa9\"", "\"a\\n\xffb\"",
	`{"timestamp":"2026-03-01T09:00:00Z","request":{"model":"m","messages":[{"role":"user","content":"hi"}]},"response":{"usage":{"completion_tokens":5}}}`,
	// Long strings, scanned eight bytes at a time: a stop or a byte above 0x7F at each offset
	// of a word, invalid UTF-8 after a clean run and after an escape, a clean run after
	// invalid bytes.
	`"0123456789abcdef0123456789abcdef"`, `"0123456789abcdef\n0123456789abcde"`, "\"0123456789abcd\xff0123456789\"",
	"\"0123456789\\\"abcdef caf\xc3\xa9 0123456789 \xe2\x82 01234567\"", "\"01234567\x80\"", "\"0123456\x7f0123456789\"",
	"\"\xff0123456789abcdef0123456789\"", "\"01234567\n89\"", "\"0123456789abcdef\x01\"",
	"\"ab\xffcd\\nef\"", "\"0123456789\xc3\xa9abcdef\\t0123456789abcdef\"", "\"0123\\n4567\xe2\x82\"",
	// Rejected ones.
	``, ` `, `{`, `}`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `01`, `-`, `1.`, `1e`, `.5`, `+1`, `{} x`, `{} ]`, `[1] [2]`,
	`"abc`, "\"a\tb\"", `"\x"`, `"\u12"`, `tru`, `nul`, `[1 2]`, "\xef\xbb\xbf{}", `NaN`, `{"a":}`,
}

func TestDecodeMatchesEncodingJSON(t *testing.T) {
	for _, c := range cases {
		check(t, []byte(c))
	}
	deep := strings.Repeat("[", jsoncur.MaxDepth) + strings.Repeat("]", jsoncur.MaxDepth)
	check(t, []byte(deep))
	deeper := strings.Repeat("[", jsoncur.MaxDepth+1) + strings.Repeat("]", jsoncur.MaxDepth+1)
	check(t, []byte(deeper))
}

func TestSyntaxErrorOffset(t *testing.T) {
	_, err := Decode([]byte(`{"a": [1, 2,, 3]}`))
	se, ok := err.(*SyntaxError)
	if !ok || se.Offset != 12 {
		t.Fatalf("got %v, want a SyntaxError at offset 12", err)
	}
}

func FuzzDecode(f *testing.F) {
	for _, c := range cases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) { check(t, data) })
}

// BenchmarkDecode against encoding/json's Decoder with UseNumber on a chat log line.
func BenchmarkDecode(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"timestamp":"2026-03-01T09:00:00.5Z","request":{"model":"qwen3","messages":[`)
	for i := range 8 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"role":"user","content":"` + strings.Repeat(`Some text with a \"quote\", a newline\n and caf\u00e9. `, 12) + `"}`)
	}
	sb.WriteString(`]},"response":{"usage":{"prompt_tokens":1200,"completion_tokens":80},"choices":[{"index":0,"text":"done"}]}}`)
	line := []byte(sb.String())
	b.Run("jsonv", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		for range b.N {
			if _, err := Decode(line); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		for range b.N {
			d := json.NewDecoder(bytes.NewReader(line))
			d.UseNumber()
			var v any
			if err := d.Decode(&v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
