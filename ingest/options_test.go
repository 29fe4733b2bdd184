package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMooncakeOptions: the options object the request-log export adds to a Mooncake line is
// read back into Record.Options (a line without one has none), through the normalized trace
// too; a malformed one is that line's error, naming the field.
func TestMooncakeOptions(t *testing.T) {
	dir := t.TempDir()
	lines := `{"timestamp": 0, "input_length": 20, "output_length": 5, "hash_ids": [0], "options": {"api":"chat","stream":false,"temperature":0.5,"stop":["\n"],"tools":[{"type":"function","function":{"name":"f"}}],"cancelled":true,"cancel_after_ms":1500}}
{"timestamp": 10, "input_length": 20, "output_length": 5, "hash_ids": [0]}
`
	path := filepath.Join(dir, "export.jsonl")
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, _, err := ReadAll(path, Options{Format: FormatMooncake})
	if err != nil || len(recs) != 2 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	o := recs[0].Options
	if o == nil || o.API != "chat" || o.Stream == nil || *o.Stream || *o.Temperature != 0.5 || o.Stop[0] != "\n" ||
		string(o.Tools) != `[{"type":"function","function":{"name":"f"}}]` || !o.Cancelled || o.CancelAfterMS != 1500 {
		t.Fatalf("options %+v", o)
	}
	if recs[1].Options != nil {
		t.Errorf("a line without options got %+v", recs[1].Options)
	}
	out := filepath.Join(dir, "t.parquet")
	if _, err := Normalize(t.Context(), NormalizeOptions{Trace: path, Read: Options{Format: FormatMooncake}, Out: out}); err != nil {
		t.Fatal(err)
	}
	back, _, err := ReadAll(out, Options{})
	if err != nil || len(back) != 2 || back[0].Options == nil || string(back[0].Options.Tools) != string(o.Tools) || back[1].Options != nil {
		t.Fatalf("normalized: %+v, %v", back, err)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"timestamp": 0, "input_length": 20, "output_length": 5, "options": {"stream": "yes"}}`+"\n"), 0o644)
	if _, _, err := ReadAll(bad, Options{Format: FormatMooncake}); err == nil || !strings.Contains(err.Error(), "options") || !strings.Contains(err.Error(), "bad.jsonl:1") {
		t.Fatalf("bad options: %v", err)
	}
}
