package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestMissingColumnNamesMap: a CSV or Parquet file without a required field's column, and a
// JSON line without its key, are refused with the file and line, the columns the file has,
// and the --map that points the field at one of them.
func TestMissingColumnNamesMap(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	csvFile := write("calls.csv", "ts,prompt_tokens,output_tokens\n1,10,20\n")
	jsonFile := write("calls.jsonl", `{"ts":1,"prompt_tokens":10,"output_tokens":20}`+"\n")
	pqFile := filepath.Join(dir, "calls.parquet")
	type pqRow struct {
		TS     int64 `parquet:"ts"`
		Prompt int64 `parquet:"prompt_tokens"`
		Output int64 `parquet:"output_tokens"`
	}
	if err := parquet.WriteFile(pqFile, []pqRow{{1, 10, 20}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		path string
		opts Options
		want []string
	}{
		{"csv", csvFile, Options{Format: FormatCSV},
			[]string{"calls.csv:1: ", `no column "timestamp" for field timestamp (columns: ts, prompt_tokens, output_tokens): pass --map timestamp=COLUMN`}},
		{"csv mapped", csvFile, Options{Format: FormatCSV, Map: map[string]string{"timestamp": "time"}},
			[]string{"calls.csv:1: ", `--map timestamp=time: no column "time" (columns: ts, prompt_tokens, output_tokens): pass --map timestamp=COLUMN with one of them`}},
		{"jsonl", jsonFile, Options{Format: FormatJSONL},
			[]string{"calls.jsonl:1: ", `field "timestamp": missing (no such key in the line): pass --map timestamp=KEY`}},
		{"parquet", pqFile, Options{Format: FormatParquet},
			[]string{"calls.parquet: ", `no column "timestamp" for field timestamp (columns: ts, prompt_tokens, output_tokens): pass --map timestamp=COLUMN`}},
	} {
		r, err := Open(c.path, c.opts)
		if err == nil {
			_, err = r.Next()
			r.Close()
		}
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v\nwant %q", c.name, err, w)
			}
		}
	}
	// the fix the message names works
	r, err := Open(csvFile, Options{Format: FormatCSV, Map: map[string]string{"timestamp": "ts"}})
	if err != nil {
		t.Fatalf("with --map timestamp=ts: %v", err)
	}
	r.Close()
}
