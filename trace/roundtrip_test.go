package trace

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

// sampleRecords covers the edges: nil and long hash lists, empty and non-ASCII strings,
// extreme integers, and more rows than one read batch.
func sampleRecords(n int) []Record {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]Record, n)
	for i := range out {
		r := Record{
			Timestamp:    time.Duration(i) * 1234567 * time.Nanosecond,
			PromptTokens: rng.IntN(200000),
			OutputTokens: rng.IntN(2000),
			BlockSize:    []int{0, 16, 512}[i%3],
			SessionID:    []string{"", "s-1", "séance ✓"}[i%3],
			Turn:         i % 7,
			Model:        []string{"", "llama-3"}[i%2],
			Source:       "in.jsonl",
			Line:         int64(i + 1),
		}
		if i%5 == 1 {
			r.Options = sampleOptions(i)
		}
		if i%4 != 0 {
			r.BlockHashes = make([]uint64, 1+rng.IntN(40))
			for j := range r.BlockHashes {
				r.BlockHashes[j] = rng.Uint64()
			}
		}
		out[i] = r
	}
	out[0].BlockHashes = []uint64{0, math.MaxUint64, 1 << 63}
	out[n-1].Timestamp = math.MaxInt64
	return out
}

// sampleOptions varies every field of Options, with tools and a schema whose text holds
// characters JSON escapes or HTML would (quotes, <, &, non-ASCII).
func sampleOptions(i int) *Options {
	f, b, n := float64(i%7)/10, i%3 == 0, int64(i)
	k := i % 4
	o := &Options{API: []string{"chat", "completions"}[i%2], Stream: &b, Temperature: &f, Seed: &n, N: 1 + i%3}
	switch i % 3 {
	case 0:
		o.Stop = []string{"\n\n", "</s>", "Ünde"}
		o.IncludeUsage, o.TopP, o.PresencePenalty, o.FrequencyPenalty = &b, &f, &f, &f
		o.Logprobs, o.TopLogprobs = &b, &k
		o.MaxTokensField = "max_completion_tokens"
		o.Status, o.Cancelled, o.CancelAfterMS = 499, true, 1234.5
	case 1:
		o.Tools = json.RawMessage(`[{"type":"function","function":{"name":"f","description":"say \"hi\" <b> & go","parameters":{"type":"object","properties":{"x":{"type":"string","enum":["a","b"]}}}}}]`)
		o.ToolChoice = json.RawMessage(`"auto"`)
		o.ParallelToolCalls = &b
		o.FinishReason, o.Status = "tool_calls", 200
		o.ReasoningTokens = &k // 0 too: a log that says nothing was thought
	default:
		o.ResponseFormat = json.RawMessage(`{"type":"json_schema","json_schema":{"name":"r","schema":{"type":"object"},"strict":true}}`)
		o.MaxTokensField, o.FinishReason = "max_tokens", "length"
		o.Body = json.RawMessage(`{"model":"m","messages":[{"role":"user","content":"été"}]}`)
	}
	return o
}

func TestParquetRoundTrip(t *testing.T) {
	recs := sampleRecords(5000)
	p := filepath.Join(t.TempDir(), "t.parquet")
	w, err := CreateFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if w.Count() != int64(len(recs)) {
		t.Fatalf("count %d", w.Count())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadAll(p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, recs) {
		for i := range recs {
			if !reflect.DeepEqual(got[i], recs[i]) {
				t.Fatalf("record %d: got %+v, want %+v", i, got[i], recs[i])
			}
		}
		t.Fatalf("got %d records, want %d", len(got), len(recs))
	}
	// The reasoning count, inside the options column's JSON, comes back, a logged 0 as 0.
	var reasoning, zero int
	for i, r := range got {
		if want := recs[i].Options; want != nil && want.ReasoningTokens != nil {
			if r.Options == nil || r.Options.ReasoningTokens == nil || *r.Options.ReasoningTokens != *want.ReasoningTokens {
				t.Fatalf("record %d: reasoning tokens %+v, want %d", i, r.Options, *want.ReasoningTokens)
			}
			reasoning++
			if *want.ReasoningTokens == 0 {
				zero++
			}
		}
	}
	if reasoning == 0 || zero == 0 {
		t.Fatalf("%d records with a reasoning count (%d of them 0): the sample covers too little", reasoning, zero)
	}
	// Records must not share hash memory: changing one leaves the next intact.
	got[1].BlockHashes[0]++
	if got[2].BlockHashes != nil && got[2].BlockHashes[0] != recs[2].BlockHashes[0] {
		t.Fatal("records share hash memory")
	}
}

func TestArrowRoundTrip(t *testing.T) {
	recs := sampleRecords(70000) // more than one batch
	p := filepath.Join(t.TempDir(), "t.arrow")
	w, err := CreateArrowFile(p)
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
	got, err := ReadArrowFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, recs) {
		t.Fatalf("arrow round trip differs (%d vs %d records)", len(got), len(recs))
	}
}

func TestReaderRejects(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, r := range sampleRecords(100) {
		w.Write(r)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	for _, cut := range []int{0, 4, len(data) / 2, len(data) - 1} {
		_, err := NewReader(bytes.NewReader(data[:cut]), int64(cut), "cut.parquet")
		if err == nil {
			t.Errorf("truncated at %d: no error", cut)
		}
	}
	// A Parquet file of another shape is not a normalized trace.
	dir := t.TempDir()
	other := filepath.Join(dir, "other.parquet")
	os.WriteFile(other, []byte("PAR1 not really"), 0o644)
	if _, err := OpenFile(other); err == nil {
		t.Error("garbage accepted")
	}
}

// TestParquetVersion1 reads a file of the first layout, without the options column: its
// records have no options, and all else reads as before.
func TestParquetVersion1(t *testing.T) {
	type v1Row struct {
		TimestampNs  int64    `parquet:"timestamp_ns,delta"`
		PromptTokens int64    `parquet:"prompt_tokens"`
		OutputTokens int64    `parquet:"output_tokens"`
		BlockHashes  []uint64 `parquet:"block_hashes,list" parquet-element:",delta"`
		BlockSize    int64    `parquet:"block_size"`
		SessionID    string   `parquet:"session_id,dict"`
		Turn         int64    `parquet:"turn"`
		Model        string   `parquet:"model,dict"`
		Source       string   `parquet:"source,dict"`
		Line         int64    `parquet:"line,delta"`
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[v1Row](&buf)
	if _, err := w.Write([]v1Row{{TimestampNs: 5, PromptTokens: 7, OutputTokens: 2, BlockHashes: []uint64{9}, BlockSize: 16, Source: "a", Line: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "v1.parquet")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := r.Next()
	want := Record{Timestamp: 5, PromptTokens: 7, OutputTokens: 2, BlockHashes: []uint64{9}, BlockSize: 16, Source: "a", Line: 1}
	if err != nil || !reflect.DeepEqual(rec, want) {
		t.Fatalf("got %+v, %v; want %+v", rec, err, want)
	}
}

// TestOptionsJSON: the JSON shape round-trips to the same bytes, nil is no text, and a field
// this version does not know is an error rather than dropped.
func TestOptionsJSON(t *testing.T) {
	for i := range 3 {
		o := sampleOptions(i)
		text, err := EncodeOptions(o)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeOptions(text)
		if err != nil || !reflect.DeepEqual(back, o) {
			t.Fatalf("%s: decoded %+v, %v", text, back, err)
		}
		again, _ := EncodeOptions(back)
		if !bytes.Equal(again, text) {
			t.Fatalf("re-encoded %s, first %s", again, text)
		}
	}
	if text, err := EncodeOptions(nil); text != nil || err != nil {
		t.Errorf("nil options: %q, %v", text, err)
	}
	if o, err := DecodeOptions(nil); o != nil || err != nil {
		t.Errorf("no text: %+v, %v", o, err)
	}
	if _, err := DecodeOptions([]byte(`{"api":"chat","frobnicate":1}`)); err == nil {
		t.Error("an unknown field was accepted")
	}
}
