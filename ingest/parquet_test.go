package ingest

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/llm-replay/replay/trace"
)

type usage struct {
	PromptTokens     int32 `parquet:"prompt_tokens"`
	CompletionTokens int64 `parquet:"completion_tokens"`
}

// warehouseRow is a Parquet export of another shape: nested usage, a TIMESTAMP column, a list
// of hashes and an optional model.
type warehouseRow struct {
	TS     time.Time `parquet:"ts,timestamp(millisecond)"`
	Usage  usage     `parquet:"usage"`
	Hashes []int64   `parquet:"hashes,list"`
	Model  *string   `parquet:"model,optional"`
}

func writeWarehouse(t *testing.T, rows []warehouseRow, perGroup int64, opts ...parquet.WriterOption) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "export.parquet")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[warehouseRow](f, append(opts, parquet.MaxRowsPerRowGroup(perGroup))...)
	for len(rows) > 0 { // in batches, so that small pages are cut
		k := min(len(rows), 97)
		if _, err := w.Write(rows[:k]); err != nil {
			t.Fatal(err)
		}
		rows = rows[k:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return p
}

var warehouseMap = map[string]string{"timestamp": "ts", "prompt_tokens": "usage.prompt_tokens", "output_tokens": "usage.completion_tokens", "block_hashes": "hashes", "model": "model"}

func TestGenericParquet(t *testing.T) {
	t0 := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	m := "llama"
	rows := []warehouseRow{
		{TS: t0, Usage: usage{40, 3}, Hashes: []int64{1, 2, 3}, Model: &m},
		{TS: t0.Add(1500 * time.Millisecond), Usage: usage{16, 9}, Hashes: []int64{1}},
		{TS: t0.Add(2 * time.Second), Usage: usage{0, 1}},
	}
	p := writeWarehouse(t, rows, 2)
	recs, counts, err := ReadAll(p, Options{Map: warehouseMap, BlockSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	want := []trace.Record{
		{Timestamp: 0, PromptTokens: 40, OutputTokens: 3, BlockHashes: []uint64{1, 2, 3}, BlockSize: 16, Model: "llama", Source: p, Line: 1},
		{Timestamp: 1500 * time.Millisecond, PromptTokens: 16, OutputTokens: 9, BlockHashes: []uint64{1}, BlockSize: 16, Source: p, Line: 2},
		{Timestamp: 2 * time.Second, PromptTokens: 0, OutputTokens: 1, BlockSize: 16, Source: p, Line: 3},
	}
	if !reflect.DeepEqual(recs, want) || counts.Records != 3 {
		t.Fatalf("got %+v\nwant %+v", recs, want)
	}

	// A missing mapped column fails at open, naming it.
	_, _, err = ReadAll(p, Options{Map: map[string]string{"timestamp": "ts", "prompt_tokens": "usage.input", "output_tokens": "usage.completion_tokens"}})
	oneLine(t, err, "export.parquet", `column "usage.input"`)

	// A bad value points at its row group and row.
	rows[2].Usage.PromptTokens = -3
	p = writeWarehouse(t, rows, 2)
	_, _, err = ReadAll(p, Options{Map: warehouseMap, BlockSize: 16})
	oneLine(t, err, "export.parquet: row group 1, row 0:", `field "usage.prompt_tokens": negative value -3`)

	q := filepath.Join(t.TempDir(), "q.jsonl")
	recs, counts, err = ReadAll(p, Options{Map: warehouseMap, BlockSize: 16, OnError: OnErrorSkip, QuarantinePath: q})
	if err != nil || len(recs) != 2 || counts.Rejected != 1 {
		t.Fatalf("skip: %d records, %+v, %v", len(recs), counts, err)
	}
	raw, _ := os.ReadFile(q)
	if !strings.Contains(string(raw), `"usage.prompt_tokens":-3`) || strings.Count(string(raw), "\n") != 1 {
		t.Errorf("quarantine %q", raw)
	}
}

// TestGenericParquetColumnar reads exports whose mapped columns are all scalars, which go
// through the columnar path, and holds it to the row path's records for the same file.
func TestGenericParquetColumnar(t *testing.T) {
	t0 := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	models := []string{"llama", "qwen", "llama"}
	var rows []warehouseRow
	for i := range 7 {
		r := warehouseRow{TS: t0.Add(time.Duration(i) * 700 * time.Millisecond), Usage: usage{int32(16 * (i + 1)), int64(i + 1)}}
		for j := range i + 1 {
			r.Hashes = append(r.Hashes, int64(100*i+j))
		}
		if i%3 != 1 {
			r.Model = &models[i%3]
		}
		rows = append(rows, r)
	}
	p := writeWarehouse(t, rows, 3)
	scalars := map[string]string{"timestamp": "ts", "prompt_tokens": "usage.prompt_tokens", "output_tokens": "usage.completion_tokens", "model": "model"}

	src, err := openSource(p, "parquet", mapping{}.with(scalars), scalars, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ps, ok := src.(*parquetSource); !ok || !ps.columnar {
		t.Fatalf("scalar mapping read by %T, not the columnar path", src)
	}
	src.close()

	got, counts, err := ReadAll(p, Options{Map: scalars, BlockSize: 16})
	if err != nil || counts.Records != int64(len(rows)) {
		t.Fatalf("%d records, %v", counts.Records, err)
	}
	want, _, err := ReadAll(p, Options{Map: warehouseMap, BlockSize: 16}) // the row path
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		want[i].BlockHashes = nil
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("columnar %+v\nrow path %+v", got, want)
	}
	if got[0].Model != "llama" || got[1].Model != "" || got[5].Model != "llama" {
		t.Errorf("models %q %q %q", got[0].Model, got[1].Model, got[5].Model)
	}

	// A bad value points at its row group and row, and is quarantined with its columns.
	rows[4].Usage.PromptTokens = -3
	p = writeWarehouse(t, rows, 3)
	_, _, err = ReadAll(p, Options{Map: scalars, BlockSize: 16})
	oneLine(t, err, "export.parquet: row group 1, row 1:", `field "usage.prompt_tokens": negative value -3`)
	q := filepath.Join(t.TempDir(), "q.jsonl")
	recs, counts, err := ReadAll(p, Options{Map: scalars, BlockSize: 16, OnError: OnErrorSkip, QuarantinePath: q})
	if err != nil || len(recs) != len(rows)-1 || counts.Rejected != 1 {
		t.Fatalf("skip: %d records, %+v, %v", len(recs), counts, err)
	}
	raw, _ := os.ReadFile(q)
	if !strings.Contains(string(raw), `"usage.prompt_tokens":-3`) || !strings.Contains(string(raw), `"model":null`) || strings.Count(string(raw), "\n") != 1 {
		t.Errorf("quarantine %q", raw)
	}

	// Row groups larger than the window, of many small pages that end at different rows in
	// each column.
	rows = rows[:0]
	for i := range 3*columnWindow + 123 {
		r := warehouseRow{TS: t0.Add(time.Duration(i) * time.Millisecond), Usage: usage{16, int64(i % 1000)}, Hashes: []int64{int64(i)}}
		if i%5 != 0 {
			r.Model = &models[i%3]
		}
		rows = append(rows, r)
	}
	p = writeWarehouse(t, rows, 2*columnWindow+7, parquet.PageBufferSize(1000))
	got, _, err = ReadAll(p, Options{Map: scalars, BlockSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	want, _, err = ReadAll(p, Options{Map: warehouseMap, BlockSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		want[i].BlockHashes = nil
	}
	if len(got) != len(rows) || !reflect.DeepEqual(got, want) {
		t.Fatalf("%d rows: columnar and row path differ", len(got))
	}
}

// typedRow has a column of each kind the columnar path decodes on its own.
type typedRow struct {
	Ms      int64    `parquet:"ms"`
	Prompt  float64  `parquet:"prompt"`
	Output  float32  `parquet:"output"`
	Small   int32    `parquet:"small,optional"`
	Model   string   `parquet:"model,dict"`
	Session *string  `parquet:"session,optional"`
	Flag    bool     `parquet:"flag"`
	Hashes  []uint64 `parquet:"hashes,list"`
}

// TestGenericParquetColumnarKinds holds the columnar path to the row path on doubles, floats,
// optional int32s, dictionary and optional strings and booleans, records and errors alike.
func TestGenericParquetColumnarKinds(t *testing.T) {
	var rows []typedRow
	sessions := []string{"s-1", "s-2"}
	for i := range 1000 {
		r := typedRow{Ms: int64(1000 + 10*i), Prompt: float64(16 * (i%7 + 1)), Output: float32(i % 9), Small: int32(i % 5),
			Model: []string{"a", "bb", "ccc"}[i%3], Flag: i%2 == 0}
		if i%4 != 0 {
			r.Session = &sessions[i%2]
		}
		r.Hashes = make([]uint64, i%7+1)
		rows = append(rows, r)
	}
	p := filepath.Join(t.TempDir(), "typed.parquet")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[typedRow](f, parquet.MaxRowsPerRowGroup(300), parquet.PageBufferSize(700))
	for len(rows) > 0 {
		k := min(len(rows), 61)
		if _, err := w.Write(rows[:k]); err != nil {
			t.Fatal(err)
		}
		rows = rows[k:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, m := range []map[string]string{
		{"timestamp": "ms", "prompt_tokens": "prompt", "output_tokens": "output", "model": "model", "session_id": "session"},
		{"timestamp": "ms", "prompt_tokens": "prompt", "output_tokens": "small", "turn": "small", "model": "model"},
		{"timestamp": "ms", "prompt_tokens": "prompt", "output_tokens": "output", "session_id": "flag"}, // a boolean is no session
		{"timestamp": "ms", "prompt_tokens": "model", "output_tokens": "output"},                        // nor a string a count
	} {
		got, gotCounts, gotErr := ReadAll(p, Options{Map: m, TimeUnit: "ms", BlockSize: 16, OnError: OnErrorSkip})
		withHashes := maps.Clone(m)
		withHashes["block_hashes"] = "hashes"
		want, wantCounts, wantErr := ReadAll(p, Options{Map: withHashes, TimeUnit: "ms", BlockSize: 16, OnError: OnErrorSkip})
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || gotCounts.Rejected != wantCounts.Rejected {
			t.Fatalf("%v: columnar %d rejected, error %v; row path %d, %v", m, gotCounts.Rejected, gotErr, wantCounts.Rejected, wantErr)
		}
		_, _, gotErr = ReadAll(p, Options{Map: m, TimeUnit: "ms", BlockSize: 16})
		_, _, wantErr = ReadAll(p, Options{Map: withHashes, TimeUnit: "ms", BlockSize: 16})
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("%v: columnar error %v, row path %v", m, gotErr, wantErr)
		}
		for i := range want {
			want[i].BlockHashes = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%v: columnar and row path differ (%d and %d records)", m, len(got), len(want))
		}
		t.Logf("%v: %d records, %d rejected, %v", m, len(got), gotCounts.Rejected, gotErr)
	}
}
