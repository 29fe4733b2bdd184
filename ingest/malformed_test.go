package ingest

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/trace"
)

func td(name string) string { return filepath.Join("testdata", name) }

// oneLine fails the test unless err is a single-line message containing every part.
func oneLine(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one mentioning %q", parts)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("error spans lines: %q", msg)
	}
	for _, p := range parts {
		if !strings.Contains(msg, p) {
			t.Errorf("error %q does not mention %q", msg, p)
		}
	}
}

// TestMalformedFail: with --on-error fail each bad input stops with a one-line error that
// names the file, the line and the field.
func TestMalformedFail(t *testing.T) {
	cases := []struct {
		name  string
		file  string
		opts  Options
		parts []string
	}{
		{"truncated JSON line", "truncated.jsonl", Options{}, []string{"truncated.jsonl:2:", "truncated JSON"}},
		{"wrong type", "wrong_type.jsonl", Options{}, []string{"wrong_type.jsonl:2:", `field "input_length"`, "want an integer, got a string"}},
		{"negative length", "negative.jsonl", Options{}, []string{"negative.jsonl:3:", `field "input_length": negative value -3`}},
		{"bad timestamp", "azure_bad_time.csv", Options{}, []string{"azure_bad_time.csv:3:", `field "TIMESTAMP"`, "bad datetime"}},
		{"empty file", "empty.jsonl", Options{}, []string{"empty.jsonl", "empty trace"}},
		{"empty file, explicit format", "empty.jsonl", Options{Format: FormatMooncake}, []string{"empty.jsonl", "empty trace"}},
		{"wrong format: mooncake read as azure", "mooncake_small.jsonl", Options{Format: FormatAzure}, []string{"mooncake_small.jsonl:1:", `column "TIMESTAMP"`, "looks like --format mooncake"}},
		{"wrong format: azure read as mooncake", "azure_small.csv", Options{Format: FormatMooncake}, []string{"azure_small.csv:1:", "not a JSON object", "looks like --format azure"}},
		{"unknown format", "azure_small.csv", Options{Format: "tsv"}, []string{`unknown format "tsv"`}},
		{"missing mapped CSV column", "azure_small.csv", Options{Map: map[string]string{"prompt_tokens": "PromptTokens"}}, []string{"azure_small.csv:1:", `column "PromptTokens"`, "prompt_tokens"}},
		{"missing mapped JSON path", "gateway.jsonl", Options{Format: FormatJSONL, Map: map[string]string{"timestamp": "ts", "prompt_tokens": "usage.input_tokens", "output_tokens": "usage.completion_tokens"}}, []string{"gateway.jsonl:1:", `field "usage.input_tokens": missing`}},
		{"hash count disagrees", "hash_mismatch.jsonl", Options{}, []string{"hash_mismatch.jsonl:2:", `field "hash_ids"`, "3 hashes, but ceil(600 prompt tokens / block size 512) = 2"}},
		{"out of order", "out_of_order.jsonl", Options{}, []string{"out_of_order.jsonl:3:", `field "timestamp"`, "out of order", "--sort"}},
		{"openai-log without its reader", "gateway.jsonl", Options{Format: FormatOpenAILog}, []string{"gateway.jsonl: format openai-log needs its reader registered"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			recs, _, err := ReadAll(td(c.file), c.opts)
			oneLine(t, err, c.parts...)
			_ = recs
		})
	}
}

// TestTruncatedParquet cuts a valid normalized trace file short and in the middle.
func TestTruncatedParquet(t *testing.T) {
	dir, data := smallParquet(t)
	for _, cut := range []int{len(data) - 1, len(data) - 8, len(data) / 2, 8} {
		p := filepath.Join(dir, "cut.parquet")
		if err := os.WriteFile(p, data[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := ReadAll(p, Options{Format: FormatParquet})
		oneLine(t, err, "cut.parquet", "parquet")
		_, _, err = ReadAll(p, Options{})
		if err == nil {
			t.Errorf("cut at %d: auto format read a truncated file", cut)
		}
	}
}

// TestParquetInflatedRowCount: a footer claiming a billion rows for a group of a few (valid
// Thrift, so the footer check cannot tell) is an error naming the file, through every Parquet
// path: the normalized reader, --map with a hash list, --map with scalars only, and the row
// reader. None may allocate for the claimed rows first.
func TestParquetInflatedRowCount(t *testing.T) {
	dir, valid := smallParquet(t)
	body, md := testenv.ParquetFooter(t, valid)
	md.RowGroups[0].NumRows, md.NumRows = 1<<30, 1<<30
	p := filepath.Join(dir, "inflated.parquet")
	if err := os.WriteFile(p, testenv.WithParquetFooter(t, body, md), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, o := range map[string]Options{
		"normalized": {Format: FormatParquet},
		"hash list":  {Format: FormatParquet, TimeUnit: "ns", BlockSize: 512, Map: map[string]string{"timestamp": "timestamp_ns", "prompt_tokens": "prompt_tokens", "output_tokens": "output_tokens", "block_hashes": "block_hashes"}},
		"scalars":    {Format: FormatParquet, TimeUnit: "ns", Map: map[string]string{"timestamp": "timestamp_ns", "prompt_tokens": "prompt_tokens", "output_tokens": "output_tokens", "model": "model"}},
		"row reader": {Format: FormatParquet, TimeUnit: "ns", Map: map[string]string{"timestamp": "timestamp_ns", "prompt_tokens": "prompt_tokens", "output_tokens": "output_tokens", "block_hashes": "model"}},
	} {
		var err error
		n := testenv.Allocated(func() { _, _, err = ReadAll(p, o) })
		oneLine(t, err, "inflated.parquet")
		if n > 128<<20 {
			t.Errorf("%s: %d bytes allocated to refuse it (%v)", name, n, err)
		}
	}
}

// smallParquet writes the normalized trace of mooncake_small.jsonl into a new temporary
// folder and returns the folder and the file's bytes.
func smallParquet(t *testing.T) (dir string, data []byte) {
	t.Helper()
	recs, _, err := ReadAll(td("mooncake_small.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	full := filepath.Join(dir, "full.parquet")
	writeParquet(t, full, recs)
	data, err = os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	return dir, data
}

func writeParquet(t *testing.T, path string, recs []trace.Record) {
	t.Helper()
	w, err := trace.CreateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSkipQuarantines: with --on-error skip, each bad row's raw line goes to the quarantine,
// is counted, and the good rows still come through.
func TestSkipQuarantines(t *testing.T) {
	cases := []struct {
		file     string
		opts     Options
		records  int
		rejected []string // raw lines expected in the quarantine
	}{
		{"truncated.jsonl", Options{}, 1, []string{`{"timestamp": 10, "input_length": 600, "output_len`}},
		{"wrong_type.jsonl", Options{}, 2, []string{`{"timestamp": 10, "input_length": "600", "output_length": 7, "hash_ids": [0, 2]}`}},
		{"negative.jsonl", Options{}, 3, []string{`{"timestamp": 25, "input_length": -3, "output_length": 1, "hash_ids": []}`}},
		{"azure_bad_time.csv", Options{}, 2, []string{`2024-02-07 25:30:17.0360914,1287,206`}},
		{"hash_mismatch.jsonl", Options{}, 1, []string{`{"timestamp": 10, "input_length": 600, "output_length": 7, "hash_ids": [0, 2, 4]}`}},
		{"out_of_order.jsonl", Options{}, 3, []string{`{"timestamp": 20, "input_length": 10, "output_length": 7, "hash_ids": [5]}`}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			q := filepath.Join(t.TempDir(), "q.txt")
			c.opts.OnError = OnErrorSkip
			c.opts.QuarantinePath = q
			recs, counts, err := ReadAll(td(c.file), c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != c.records || counts.Records != int64(c.records) || counts.Rejected != int64(len(c.rejected)) {
				t.Fatalf("%d records, counts %+v; want %d records, %d rejected", len(recs), counts, c.records, len(c.rejected))
			}
			if len(counts.Errors) != len(c.rejected) {
				t.Errorf("kept errors %q", counts.Errors)
			}
			got, err := os.ReadFile(q)
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.Join(c.rejected, "\n") + "\n"; string(got) != want {
				t.Errorf("quarantine holds %q, want %q", got, want)
			}
		})
	}
}

// TestAllRejected: a trace whose every row is bad is an error even under skip.
func TestAllRejected(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(p, []byte("{\"timestamp\": 1}\nnot json\n"), 0o644)
	_, _, err := ReadAll(p, Options{Format: FormatMooncake, OnError: OnErrorSkip})
	oneLine(t, err, "no valid records", "all 2 rows rejected")
}

// TestBOMAndCRLF: a UTF-8 byte-order mark and CRLF endings are accepted and change nothing.
func TestBOMAndCRLF(t *testing.T) {
	for _, pair := range [][2]string{{"bom_crlf.jsonl", "mooncake_small.jsonl"}, {"azure_bom_crlf.csv", "azure_small.csv"}} {
		got, _, err := ReadAll(td(pair[0]), Options{})
		if err != nil {
			t.Fatalf("%s: %v", pair[0], err)
		}
		want, _, err := ReadAll(td(pair[1]), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Fatalf("%s: %d records", pair[0], len(got))
		}
		for i := range got {
			got[i].Source, want[i].Source = "", ""
		}
		if !reflect.DeepEqual(got, want[:2]) {
			t.Errorf("%s differs from %s: %s", pair[0], pair[1], firstDiff(want[:2], got))
		}
	}
}

// TestHashCheckWarn keeps mismatching rows and counts them.
func TestHashCheckWarn(t *testing.T) {
	recs, counts, err := ReadAll(td("hash_mismatch.jsonl"), Options{HashCheck: HashCheckWarn})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || counts.HashMismatches != 1 || counts.Rejected != 0 {
		t.Fatalf("%d records, counts %+v", len(recs), counts)
	}
	// A block size that matches makes the same trace clean.
	_, counts, err = ReadAll(td("hash_mismatch.jsonl"), Options{BlockSize: 256, HashCheck: HashCheckWarn})
	if err != nil || counts.HashMismatches != 1 { // 1000/256 -> 4 != 2, 600/256 -> 3 == 3
		t.Fatalf("block 256: counts %+v, %v", counts, err)
	}
}

// TestSort sorts an out-of-order trace stably, and leaves an ordered one streaming.
func TestSort(t *testing.T) {
	r, err := Open(td("out_of_order.jsonl"), Options{Sort: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []trace.Record
	for rec, err := range All(r) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rec)
	}
	var lines []int64
	var ts []time.Duration
	for _, g := range got {
		lines = append(lines, g.Line)
		ts = append(ts, g.Timestamp)
	}
	// Line 2 and 4 share 30 ms; stable order keeps 2 before 4.
	if !reflect.DeepEqual(lines, []int64{1, 3, 2, 4}) || !reflect.DeepEqual(ts, []time.Duration{0, 20 * time.Millisecond, 30 * time.Millisecond, 30 * time.Millisecond}) {
		t.Fatalf("sorted lines %v at %v", lines, ts)
	}
	if !r.Counts().Sorted {
		t.Error("counts do not say the trace was sorted")
	}
	r2, err := Open(td("mooncake_small.jsonl"), Options{Sort: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if rr := r2.(*reader); rr.sortAll {
		t.Error("an ordered trace is buffered for sorting")
	}
}

// TestGenericMapping reads nested JSON through dotted paths and RFC3339 times with zones.
func TestGenericMapping(t *testing.T) {
	opts := Options{Map: map[string]string{"timestamp": "ts", "prompt_tokens": "usage.prompt_tokens", "output_tokens": "usage.completion_tokens", "model": "req.model", "session_id": "session"}}
	recs, _, err := ReadAll(td("gateway.jsonl"), opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []trace.Record{
		{Timestamp: 0, PromptTokens: 12, OutputTokens: 3, Model: "llama", SessionID: "a", Source: td("gateway.jsonl"), Line: 1},
		{Timestamp: 250 * time.Millisecond, PromptTokens: 40, OutputTokens: 9, Model: "llama", SessionID: "a", Source: td("gateway.jsonl"), Line: 2},
		{Timestamp: time.Second, PromptTokens: 7, OutputTokens: 1, Model: "qwen", SessionID: "b", Source: td("gateway.jsonl"), Line: 3},
	}
	if !reflect.DeepEqual(recs, want) {
		t.Fatalf("got %+v", recs)
	}
	csv, _, err := ReadAll(td("generic.csv"), Options{Map: map[string]string{"timestamp": "when", "prompt_tokens": "in", "output_tokens": "out"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(csv) != 2 || csv[1].Timestamp != 750*time.Millisecond || csv[1].PromptTokens != 20 {
		t.Fatalf("generic csv %+v", csv)
	}
	ms, _, err := ReadAll(td("generic.csv"), Options{TimeUnit: "ms", Map: map[string]string{"timestamp": "when", "prompt_tokens": "in", "output_tokens": "out"}})
	if err != nil || ms[1].Timestamp != 750*time.Microsecond {
		t.Fatalf("generic csv in ms: %+v %v", ms, err)
	}
	b, _, err := ReadAll(td("burstgpt_small.csv"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 3 || b[2].Timestamp != 113*time.Second || b[2].Model != "GPT-4" || b[1].OutputTokens != 0 || b[1].PromptTokens != 1087 {
		t.Fatalf("burstgpt %+v", b)
	}
}

func TestParseMap(t *testing.T) {
	m, err := ParseMap("timestamp=ts, prompt_tokens=usage.prompt_tokens")
	if err != nil || m["timestamp"] != "ts" || m["prompt_tokens"] != "usage.prompt_tokens" || len(m) != 2 {
		t.Fatalf("%v %v", m, err)
	}
	for _, bad := range []string{"prompt=usage", "timestamp", "=x", "timestamp="} {
		if _, err := ParseMap(bad); err == nil {
			t.Errorf("ParseMap(%q) accepted", bad)
		}
	}
}

func TestRowErrorFormat(t *testing.T) {
	e := &RowError{File: "a.parquet", RowGroup: 2, Row: 17, Field: "prompt_tokens", Err: errors.New("negative value -3")}
	if got := e.Error(); got != `a.parquet: row group 2, row 17: field "prompt_tokens": negative value -3` {
		t.Error(got)
	}
	e = &RowError{File: "a.jsonl", Line: 9, Row: -1, Field: "input_length", Err: errors.New("negative value -3")}
	if got := e.Error(); got != `a.jsonl:9: field "input_length": negative value -3` {
		t.Error(got)
	}
}

// TestEmptyInputs: a file with no rows is an error in every format, and says so.
func TestEmptyInputs(t *testing.T) {
	dir := t.TempDir()
	headerOnly := filepath.Join(dir, "header.csv")
	os.WriteFile(headerOnly, []byte("TIMESTAMP,ContextTokens,GeneratedTokens\r\n"), 0o644)
	blank := filepath.Join(dir, "blank.jsonl")
	os.WriteFile(blank, []byte("\n  \n\r\n"), 0o644)
	noRows := filepath.Join(dir, "none.parquet")
	writeParquet(t, noRows, nil)
	for _, c := range []struct {
		path string
		opts Options
	}{
		{td("empty.jsonl"), Options{}},
		{td("empty.jsonl"), Options{Format: FormatAzure}},
		{headerOnly, Options{}},
		{blank, Options{Format: FormatJSONL}},
		{noRows, Options{}},
	} {
		_, _, err := ReadAll(c.path, c.opts)
		if !errors.Is(err, ErrEmpty) {
			t.Errorf("%s %+v: %v, want ErrEmpty", c.path, c.opts, err)
		}
		oneLine(t, err, filepath.Base(c.path))
	}
}
