package ingest

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/trace"
)

// TestNormalize: the job writes the trace file and shows every record to Observe; rejected
// rows are reported on Stderr with where the quarantine went; a failed job leaves no trace
// file behind.
func TestNormalize(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "t.parquet")
	seen := 0
	c, err := Normalize(context.Background(), NormalizeOptions{
		Trace: filepath.Join("testdata", "mooncake_small.jsonl"), Out: out,
		Observe: func(trace.Record) { seen++ },
	})
	if err != nil || c.Records != 3 || seen != 3 {
		t.Fatalf("counts %+v, %d observed, %v", c, seen, err)
	}
	if recs, err := trace.ReadAll(out); err != nil || len(recs) != 3 {
		t.Fatalf("wrote %d records, %v", len(recs), err)
	}
	var stderr bytes.Buffer
	q := filepath.Join(dir, "q.jsonl")
	c, err = Normalize(context.Background(), NormalizeOptions{
		Trace: filepath.Join("testdata", "negative.jsonl"), Out: out, Stderr: &stderr,
		Read: Options{OnError: OnErrorSkip, QuarantinePath: q},
	})
	if err != nil || c.Rejected != 1 {
		t.Fatalf("skip: counts %+v, %v", c, err)
	}
	if got := stderr.String(); !strings.HasPrefix(got, "rejected: ") || !strings.HasSuffix(got, "1 rejected rows written to "+q+"\n") {
		t.Errorf("stderr %q", got)
	}
	failed := filepath.Join(dir, "failed.parquet")
	if _, err := Normalize(context.Background(), NormalizeOptions{Trace: filepath.Join("testdata", "negative.jsonl"), Out: failed}); err == nil {
		t.Fatal("a bad row under fail did not fail the job")
	}
	if _, err := trace.ReadAll(failed); err == nil {
		t.Error("a failed job left its trace file")
	}
}
