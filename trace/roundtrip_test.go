package trace

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
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
