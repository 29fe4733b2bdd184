package ingest

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/llm-replay/replay/trace"
)

// TestSharedTraces ingests the real public traces: exact counts, a few known values, and a
// normalized Parquet (and Arrow) round trip that must give back the very same records.
func TestSharedTraces(t *testing.T) {
	cases := []struct {
		file      string
		records   int
		format    string
		blockSize int
		span      time.Duration
	}{
		{"mooncake_synthetic.jsonl", 3993, FormatMooncake, 512, 0},
		{"azure2023_conv.csv", 19366, FormatAzure, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			path := sharedTrace(t, c.file)
			if got, err := detectFile(path); err != nil || got != c.format {
				t.Fatalf("detect = %q, %v; want %s", got, err, c.format)
			}
			recs, counts, err := ReadAll(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != c.records || counts.Records != int64(c.records) || counts.Rejected != 0 {
				t.Fatalf("got %d records (counts %+v), want %d", len(recs), counts, c.records)
			}
			if recs[0].Timestamp != 0 {
				t.Errorf("first record at %v, want 0", recs[0].Timestamp)
			}
			for i, r := range recs {
				if r.BlockSize != c.blockSize || r.Source != path || r.Line != int64(i+1+boolInt(c.format == FormatAzure)) {
					t.Fatalf("record %d: %+v", i, r)
				}
				if i > 0 && r.Timestamp < recs[i-1].Timestamp {
					t.Fatalf("record %d goes back in time", i)
				}
			}
			dir := t.TempDir()
			pq := filepath.Join(dir, "t.parquet")
			w, err := trace.CreateFile(pq)
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
			back, err := trace.ReadAll(pq)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, recs) {
				t.Fatalf("parquet round trip differs: %s", firstDiff(recs, back))
			}
			// Reading the normalized file through ingest gives the same records too.
			again, _, err := ReadAll(pq, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(again, recs) {
				t.Fatalf("ingest of the normalized file differs: %s", firstDiff(recs, again))
			}
			ar := filepath.Join(dir, "t.arrow")
			aw, err := trace.CreateArrowFile(ar)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				if err := aw.Write(r); err != nil {
					t.Fatal(err)
				}
			}
			if err := aw.Close(); err != nil {
				t.Fatal(err)
			}
			fromArrow, err := trace.ReadArrowFile(ar)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(fromArrow, recs) {
				t.Fatalf("arrow round trip differs: %s", firstDiff(recs, fromArrow))
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func firstDiff(a, b []trace.Record) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d records vs %d", len(a), len(b))
	}
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) {
			return fmt.Sprintf("record %d: %+v vs %+v", i, a[i], b[i])
		}
	}
	return "no difference"
}

// TestSharedKnownValues checks parsed values against the raw files' first and last rows.
func TestSharedKnownValues(t *testing.T) {
	az, _, err := ReadAll(sharedTrace(t, "azure2023_conv.csv"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// 2023-11-16 18:15:46.6805900 -> 18:15:50.9951690 is 4.314579 s, to the 100 ns digit.
	if got, want := az[1].Timestamp, 4314579*time.Microsecond; got != want {
		t.Errorf("azure second offset %v, want %v", got, want)
	}
	if az[0].PromptTokens != 374 || az[0].OutputTokens != 44 || az[1].PromptTokens != 396 || az[1].OutputTokens != 109 {
		t.Errorf("azure first rows %+v %+v", az[0], az[1])
	}
	mc, _, err := ReadAll(sharedTrace(t, "mooncake_synthetic.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if mc[2].Timestamp != 40*time.Millisecond || mc[0].PromptTokens != 40160 || mc[0].OutputTokens != 6 || len(mc[0].BlockHashes) != 79 || mc[0].BlockHashes[78] != 78 || mc[1].BlockHashes[0] != 79 {
		t.Errorf("mooncake first rows %+v", mc[:3])
	}
}
