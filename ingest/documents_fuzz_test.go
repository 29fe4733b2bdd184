package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzDocuments feeds any bytes to the record splitter of JSON documents (one array, or
// values one after another): it must not panic; every record it gives starts on a line no
// earlier than the one before; where the bytes are JSON objects one after another (as
// encoding/json's Decoder reads them), it gives exactly those objects; and DocumentLines gives
// the same records a line each, on the line each begins on.
func FuzzDocuments(f *testing.F) {
	f.Add([]byte("{\n  \"a\": \"x}\\\"{\",\n  \"b\": [1, {\"c\": \"]\"}]\n}\n{\n  \"d\": null\n}\n"))
	f.Add([]byte("[\n  {\"a\": 1},\n  {\"b\": [2]}\n]\n"))
	f.Add([]byte("{\n\"a\": [1,\n2]}\n{\"b\":\n\"\\\\\"}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		type rec struct {
			raw  string
			line int64
		}
		var recs []rec
		err := EachDocument(bufio.NewReader(bytes.NewReader(data)), func(raw []byte, line int64) error {
			if len(recs) > 0 && line < recs[len(recs)-1].line || line < 1 {
				t.Fatalf("record at line %d after %v", line, recs)
			}
			recs = append(recs, rec{string(raw), line})
			return nil
		})
		lines, lerr := io.ReadAll(DocumentLines(bufio.NewReader(bytes.NewReader(data)), "f"))
		if (err == nil) != (lerr == nil) {
			t.Fatalf("EachDocument: %v, DocumentLines: %v", err, lerr)
		}
		if err != nil {
			return
		}
		// Each record on its own line, in order; on the line it begins on unless records
		// before it shared a line (two objects on one line: the later ones move down).
		got := strings.Split(string(lines), "\n")
		k, shared := 0, false
		for i, r := range recs {
			shared = shared || i > 0 && recs[i-1].line == r.line
			for k < len(got) && got[k] == "" {
				k++
			}
			flat := strings.NewReplacer("\n", " ", "\r", " ").Replace(r.raw)
			if k == len(got) || got[k] != flat || (!shared && k+1 != int(r.line)) {
				t.Fatalf("record %d of line %d not on its line in %q", i, r.line, lines)
			}
			k++
		}
		want, ok := objectsOf(data)
		if !ok {
			return
		}
		if len(recs) != len(want) {
			t.Fatalf("%d records, encoding/json reads %d objects", len(recs), len(want))
		}
		for i := range recs {
			var a, b bytes.Buffer
			if json.Compact(&a, []byte(recs[i].raw)) != nil || json.Compact(&b, want[i]) != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Fatalf("record %d: %q, want %q", i, recs[i].raw, want[i])
			}
		}
	})
}

// objectsOf is data's JSON values, as encoding/json reads one after another; ok only when all
// are objects and there is at least one (an array's elements are the forms' tests' to check).
func objectsOf(data []byte) ([]json.RawMessage, bool) {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
		return nil, false
	}
	d := json.NewDecoder(bytes.NewReader(data))
	var out []json.RawMessage
	for {
		var v json.RawMessage
		err := d.Decode(&v)
		if errors.Is(err, io.EOF) {
			return out, len(out) > 0
		}
		if err != nil || len(v) == 0 || v[0] != '{' {
			return nil, false
		}
		out = append(out, v)
	}
}
