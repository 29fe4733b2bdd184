package gatewaylog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
)

// FuzzDocuments feeds any bytes to the record splitter of JSON logs (lines, one array, or
// documents one after another): it must not panic; every record it gives starts on a line
// no earlier than the one before; and where the bytes are JSON objects one after another (as
// encoding/json's Decoder reads them, white space between), it gives exactly those objects.
func FuzzDocuments(f *testing.F) {
	for _, form := range []string{"lines", "array", "pretty", "pretty-array"} {
		f.Add(jsonForm(f, [][]byte{[]byte(`{"a":1,"s":"x}\"{"}`), []byte(`{"b":[1,{"c":2}]}`)}, form))
	}
	f.Add([]byte("{\n\"a\": [1,\n2]}\n{\"b\":\n\"\\\\\"}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var recs [][]byte
		last := int64(0)
		err := eachRecord(bytes.NewReader(data), false, func(raw []byte, line int64) error {
			if line < last || line < 1 {
				t.Fatalf("record at line %d after one at line %d", line, last)
			}
			last = line
			recs = append(recs, raw)
			return nil
		})
		want, ok := objectsOf(data)
		if br := bufio.NewReaderSize(bytes.NewReader(data), 64<<10); onOneLine(br) {
			want, ok = lineObjects(data) // JSON lines: a line is a record, whatever it holds
		}
		if !ok || err != nil {
			return
		}
		if len(recs) != len(want) {
			t.Fatalf("%d records, encoding/json reads %d objects", len(recs), len(want))
		}
		for i := range recs {
			var a, b bytes.Buffer
			if json.Compact(&a, recs[i]) != nil || json.Compact(&b, want[i]) != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Fatalf("record %d: %q, want %q", i, recs[i], want[i])
			}
		}
	})
}

// objectsOf is data's JSON values, as encoding/json reads one after another; ok only when all
// are objects and there is at least one.
func objectsOf(data []byte) ([]json.RawMessage, bool) {
	if len(bytes.TrimSpace(data)) > 0 && bytes.TrimSpace(data)[0] == '[' {
		return nil, false // an array's elements: checked by the forms' tests
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

// lineObjects is data's non-blank lines when each is one JSON object.
func lineObjects(data []byte) ([]json.RawMessage, bool) {
	var out []json.RawMessage
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		objs, ok := objectsOf(line)
		if !ok || len(objs) != 1 {
			return nil, false
		}
		out = append(out, objs[0])
	}
	return out, len(out) > 0
}
