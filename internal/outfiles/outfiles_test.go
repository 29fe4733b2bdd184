package outfiles

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/llm-replay/replay/trace"
)

// TestFinish: a failed job leaves only the files it keeps; a job that succeeded leaves all,
// with the trace files readable.
func TestFinish(t *testing.T) {
	dir := t.TempDir()
	run := func(fail bool) {
		var err error
		var o Set
		defer func() {
			if fail {
				err = errors.New("the job failed")
			}
			o.Finish(&err)
		}()
		for _, name := range []string{"t.parquet", "t.arrow"} {
			w, werr := o.Records(filepath.Join(dir, name))
			if werr != nil {
				t.Fatal(werr)
			}
			if werr := w.Write(trace.Record{PromptTokens: 3, OutputTokens: 1}); werr != nil {
				t.Fatal(werr)
			}
		}
		for _, f := range []struct {
			name string
			keep bool
		}{{"out.jsonl", false}, {"quarantine.jsonl", true}} {
			if _, ferr := o.File(filepath.Join(dir, f.name), f.keep); ferr != nil {
				t.Fatal(ferr)
			}
		}
	}
	exists := func(name string) bool { _, err := os.Stat(filepath.Join(dir, name)); return err == nil }
	run(true)
	if exists("t.parquet") || exists("t.arrow") || exists("out.jsonl") || !exists("quarantine.jsonl") {
		t.Fatal("a failed job left files that look complete, or removed its quarantine")
	}
	run(false)
	if recs, err := trace.ReadAll(filepath.Join(dir, "t.parquet")); err != nil || len(recs) != 1 {
		t.Fatalf("Parquet: %v, %v", recs, err)
	}
	if recs, err := trace.ReadArrowFile(filepath.Join(dir, "t.arrow")); err != nil || len(recs) != 1 {
		t.Fatalf("Arrow: %v, %v", recs, err)
	}
	if !exists("out.jsonl") {
		t.Fatal("a job that succeeded lost its output")
	}
}
