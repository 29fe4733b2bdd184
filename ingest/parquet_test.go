package ingest

import (
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

func writeWarehouse(t *testing.T, rows []warehouseRow, perGroup int64) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "export.parquet")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[warehouseRow](f, parquet.MaxRowsPerRowGroup(perGroup))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
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
