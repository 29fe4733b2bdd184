package ingest

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"

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
	if err := writeRows(p, rows, append(opts, parquet.MaxRowsPerRowGroup(perGroup))...); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeRows writes rows to a new Parquet file, in batches so that small pages are cut.
func writeRows[T any](path string, rows []T, opts ...parquet.WriterOption) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := parquet.NewGenericWriter[T](f, opts...)
	for len(rows) > 0 {
		k := min(len(rows), 97)
		if _, err := w.Write(rows[:k]); err != nil {
			f.Close()
			return err
		}
		rows = rows[k:]
	}
	if err := w.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
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

// readBothWays reads path through the columnar path and through parquet-go's row reader (the
// reference) and fails the test unless records, counts and errors are the same.
func readBothWays(t *testing.T, path string, opts Options) ([]trace.Record, Counts, error) {
	t.Helper()
	got, gotCounts, gotErr := ReadAll(path, opts)
	columnarParquet = false
	want, wantCounts, wantErr := ReadAll(path, opts)
	columnarParquet = true
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(gotCounts, wantCounts) {
		t.Fatalf("%v: columnar %+v, %v\nrow reader %+v, %v", opts.Map, gotCounts, gotErr, wantCounts, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		for i := range min(len(got), len(want)) {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("%v: record %d: columnar %+v\nrow reader %+v", opts.Map, i, got[i], want[i])
			}
		}
		t.Fatalf("%v: columnar %d records, row reader %d", opts.Map, len(got), len(want))
	}
	return got, gotCounts, gotErr
}

// TestGenericParquetColumnar reads exports whose mapped columns are scalars and a list of hashes
// through the columnar path, and holds it to the row reader on the same files.
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
	for _, m := range []map[string]string{scalars, warehouseMap} {
		src, err := openSource(p, "parquet", mapping{}.with(m), m, 0)
		if err != nil {
			t.Fatal(err)
		}
		if ps, ok := src.(*parquetSource); !ok || !ps.columnar {
			t.Fatalf("%v read by %T, not the columnar path", m, src)
		}
		src.close()
		got, counts, err := readBothWays(t, p, Options{Map: m, BlockSize: 16})
		if err != nil || counts.Records != int64(len(rows)) {
			t.Fatalf("%d records, %v", counts.Records, err)
		}
		if got[0].Model != "llama" || got[1].Model != "" || got[5].Model != "llama" {
			t.Errorf("models %q %q %q", got[0].Model, got[1].Model, got[5].Model)
		}
		if m["block_hashes"] != "" && !slices.Equal(got[6].BlockHashes, []uint64{600, 601, 602, 603, 604, 605, 606}) {
			t.Errorf("row 7's hashes %v", got[6].BlockHashes)
		}
	}

	// A bad value points at its row group and row, and is quarantined with its columns.
	rows[4].Usage.PromptTokens = -3
	p = writeWarehouse(t, rows, 3)
	_, _, err := readBothWays(t, p, Options{Map: scalars, BlockSize: 16})
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
	// With the hash list mapped, the quarantined line is the row reader's, hashes included.
	var quarantined [2][]byte
	for i, columnar := range []bool{true, false} {
		columnarParquet = columnar
		q := filepath.Join(t.TempDir(), "q.jsonl")
		_, _, err := ReadAll(p, Options{Map: warehouseMap, BlockSize: 16, OnError: OnErrorSkip, QuarantinePath: q})
		columnarParquet = true
		if err != nil {
			t.Fatal(err)
		}
		quarantined[i], _ = os.ReadFile(q)
	}
	if string(quarantined[0]) != string(quarantined[1]) || !strings.Contains(string(quarantined[0]), `"hashes":[400,401,402,403,404]`) {
		t.Errorf("quarantine: columnar %q, row reader %q", quarantined[0], quarantined[1])
	}

	// Row groups larger than the window, of many small pages that end at different rows in
	// each column; lists of 0 to 40 hashes, some cut across pages.
	rows = rows[:0]
	for i := range 3*columnWindow + 123 {
		r := warehouseRow{TS: t0.Add(time.Duration(i) * time.Millisecond), Usage: usage{int32(16 * (i % 41)), int64(i % 1000)}}
		for j := range i % 41 {
			r.Hashes = append(r.Hashes, int64(i*41+j))
		}
		if i%5 != 0 {
			r.Model = &models[i%3]
		}
		rows = append(rows, r)
	}
	p = writeWarehouse(t, rows, 2*columnWindow+7, parquet.PageBufferSize(1000))
	for _, m := range []map[string]string{scalars, warehouseMap} {
		got, _, err := readBothWays(t, p, Options{Map: m, BlockSize: 16})
		if err != nil || len(got) != len(rows) {
			t.Fatalf("%d records, %v", len(got), err)
		}
	}
	// Data page v1, whose lists may go on from one page into the next.
	p = writeWarehouse(t, rows, 2*columnWindow+7, parquet.PageBufferSize(1000), parquet.DataPageVersion(1))
	if _, _, err := readBothWays(t, p, Options{Map: warehouseMap, BlockSize: 16}); err != nil {
		t.Fatal(err)
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
	Small32 []int32  `parquet:"small32,list"`
	Dict64  []int64  `parquet:"dict64,list" parquet-element:",dict"`
	Names   []string `parquet:"names,list"`
}

// TestGenericParquetColumnarKinds holds the columnar path to the row reader on doubles, floats,
// optional int32s, dictionary and optional strings, booleans, and hash lists of uint64, int32
// (negative ones refused), dictionary-encoded int64 and strings (the row reader's), records,
// rejections and errors alike.
func TestGenericParquetColumnarKinds(t *testing.T) {
	var rows []typedRow
	sessions := []string{"s-1", "s-2"}
	for i := range 1000 {
		r := typedRow{Ms: int64(1000 + 10*i), Prompt: float64(16 * (i%7 + 1)), Output: float32(i % 9), Small: int32(i % 5),
			Model: []string{"a", "bb", "ccc"}[i%3], Flag: i%2 == 0}
		if i%4 != 0 {
			r.Session = &sessions[i%2]
		}
		for j := range i%7 + 1 {
			r.Hashes = append(r.Hashes, uint64(i)<<40|uint64(j)|1<<63)
			r.Small32 = append(r.Small32, int32(i*7+j))
			r.Dict64 = append(r.Dict64, int64(j%3))
			r.Names = append(r.Names, "x")
		}
		if i%97 == 3 {
			r.Small32[0] = -int32(i)
		}
		rows = append(rows, r)
	}
	p := filepath.Join(t.TempDir(), "typed.parquet")
	if err := writeRows(p, rows, parquet.MaxRowsPerRowGroup(300), parquet.PageBufferSize(700)); err != nil {
		t.Fatal(err)
	}
	base := map[string]string{"timestamp": "ms", "prompt_tokens": "prompt", "output_tokens": "output"}
	with := func(kv ...string) map[string]string {
		m := maps.Clone(base)
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, m := range []map[string]string{
		with("model", "model", "session_id", "session", "block_hashes", "hashes"),
		with("output_tokens", "small", "turn", "small", "model", "model", "block_hashes", "small32"),
		with("block_hashes", "dict64"),
		with("block_hashes", "names"),  // strings are no hashes
		with("session_id", "flag"),     // a boolean is no session
		with("prompt_tokens", "model"), // nor a string a count
	} {
		for _, onErr := range []string{OnErrorSkip, OnErrorFail} {
			got, counts, err := readBothWays(t, p, Options{Map: m, TimeUnit: "ms", BlockSize: 16, HashCheck: HashCheckIgnore, OnError: onErr})
			t.Logf("%v %s: %d records, %d rejected, %v", m, onErr, len(got), counts.Rejected, err)
		}
	}
}

// fakeListPage is a page of a list<int64> column, from its levels and values.
type fakeListPage struct {
	parquet.Page
	reps, defs []byte
	vals       []int64
}

func (p fakeListPage) NumValues() int64         { return int64(len(p.reps)) }
func (p fakeListPage) RepetitionLevels() []byte { return p.reps }
func (p fakeListPage) DefinitionLevels() []byte { return p.defs }
func (p fakeListPage) Data() encoding.Values    { return encoding.Int64Values(p.vals) }
func (p fakeListPage) Dictionary() parquet.Dictionary {
	return nil
}
func (p fakeListPage) Type() parquet.Type { return parquet.Int64Type }

// fakePages hands out pages in order.
type fakePages struct{ pages []parquet.Page }

func (f *fakePages) ReadPage() (parquet.Page, error) {
	if len(f.pages) == 0 {
		return nil, io.EOF
	}
	p := f.pages[0]
	f.pages = f.pages[1:]
	return p, nil
}
func (f *fakePages) SeekToRow(int64) error { return errors.New("no seeking") }
func (f *fakePages) Close() error          { return nil }

// TestListCursorAcrossPages: a list that goes on into the next page (data page v1 allows it)
// is handed out whole, whatever the window.
func TestListCursorAcrossPages(t *testing.T) {
	// Rows [1 2 3] [4] [] [5 6 7 8] [9]; page breaks inside the first and the fourth.
	pages := func() parquet.Pages {
		return &fakePages{pages: []parquet.Page{
			fakeListPage{reps: []byte{0, 1}, defs: []byte{1, 1}, vals: []int64{1, 2}},
			fakeListPage{reps: []byte{1, 0, 0, 0, 1}, defs: []byte{1, 1, 0, 1, 1}, vals: []int64{3, 4, 5, 6}},
			fakeListPage{reps: []byte{1, 1}, defs: []byte{1, 1}, vals: []int64{7, 8}},
			fakeListPage{reps: []byte{0}, defs: []byte{1}, vals: []int64{9}},
		}}
	}
	want := [][]uint64{{1, 2, 3}, {4}, {}, {5, 6, 7, 8}, {9}}
	for window := 1; window <= 6; window++ {
		c := &listCursor{maxDef: 1}
		c.start(pages())
		var got [][]uint64
		var w listWindow
		for {
			if err := c.read(&w, window); err != nil {
				t.Fatal(err)
			}
			if w.rows() == 0 {
				break
			}
			for i := range w.rows() {
				got = append(got, append([]uint64{}, w.vals[w.off[i]:w.off[i+1]]...))
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("window %d: %v, want %v", window, got, want)
		}
	}
}
