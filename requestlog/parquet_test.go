package requestlog

import (
	"errors"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestParquetLog reads a request log stored as Parquet (bodies as JSON text columns, the
// timestamp as epoch seconds) like the same log in JSONL, and names the row of a bad one.
func TestParquetLog(t *testing.T) {
	type row struct {
		TS       float64 `parquet:"ts"`
		Request  string  `parquet:"request"`
		Response string  `parquet:"response"`
	}
	rows := []row{
		{1767225600, `{"model":"m","messages":[{"role":"user","content":"Q1"}]}`, `{"choices":[{"message":{"content":"A1"}}]}`},
		{1767225601.5, `{"model":"m","messages":[{"role":"user","content":"Q1"},{"role":"assistant","content":"A1"},{"role":"user","content":"Q2"}]}`, `{"usage":{"completion_tokens":9}}`},
	}
	path := filepath.Join(t.TempDir(), "log.parquet")
	if err := parquet.WriteFile(path, rows); err != nil {
		t.Fatal(err)
	}
	m := sampleModel(t)
	var jsonl strings.Builder
	for _, r := range rows {
		jsonl.WriteString(`{"ts":` + strconv.FormatFloat(r.TS, 'f', -1, 64) + `,"request":` + r.Request + `,"response":` + r.Response + "}\n")
	}
	opts := Options{Tokenizer: m.tok, Chat: m.chat, HashKey: testKey, Map: map[string]string{"timestamp": "ts"}}
	want, _, err := readAll(t, jsonl.String(), opts)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := 0; ; i++ {
		got, err := r.Next()
		if errors.Is(err, io.EOF) {
			if i != len(want) {
				t.Fatalf("%d records from Parquet, %d from JSONL", i, len(want))
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		w := want[i]
		if got.PromptTokens != w.PromptTokens || got.OutputTokens != w.OutputTokens || got.Timestamp != w.Timestamp || got.SessionID != w.SessionID || got.Turn != w.Turn || len(got.BlockHashes) != len(w.BlockHashes) {
			t.Fatalf("row %d: %+v, JSONL gave %+v", i, got.Record, w.Record)
		}
	}
	rows[1].Request = `{"model":"m"}`
	if err := parquet.WriteFile(path, rows); err != nil {
		t.Fatal(err)
	}
	r2, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	r2.Next()
	if _, err := r2.Next(); err == nil || !strings.Contains(err.Error(), "log.parquet:2:") || !strings.Contains(err.Error(), `field "request"`) {
		t.Fatalf("bad row: %v", err)
	}
}
