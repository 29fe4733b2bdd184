package synth

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/trace"
)

// sharedTrace finds a file of the shared public traces: $REPLAY_SHARED/traces, or a
// shared/traces folder beside the repository (the layout here and in CI).
func sharedTrace(t testing.TB, name string) string {
	t.Helper()
	if d := os.Getenv("REPLAY_SHARED"); d != "" {
		return filepath.Join(d, "traces", name)
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "shared", "traces", name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("shared trace %s not found: put the shared folder (with traces/) beside the repository or set REPLAY_SHARED", name)
		}
		dir = parent
	}
}

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
