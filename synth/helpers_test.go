package synth

import (
	"errors"
	"io"
	"testing"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/trace"
)

// sharedTrace finds a file of the shared public traces (see testenv.SharedTrace).
func sharedTrace(t testing.TB, name string) string { return testenv.SharedTrace(t, name) }

// mooncake reads the first n records (all when n <= 0) of the shared Mooncake trace.
func mooncake(t testing.TB, n int) []trace.Record {
	t.Helper()
	r, err := ingest.Open(sharedTrace(t, "mooncake_synthetic.jsonl"), ingest.Options{Format: "mooncake"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var recs []trace.Record
	for n <= 0 || len(recs) < n {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	return recs
}

// feed returns a Stream source over recs.
func feed(recs []trace.Record) func() (trace.Record, error) {
	i := 0
	return func() (trace.Record, error) {
		if i == len(recs) {
			return trace.Record{}, io.EOF
		}
		i++
		return recs[i-1], nil
	}
}
