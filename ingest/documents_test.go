package ingest

import (
	"strings"
	"testing"
)

// TestMooncakeDocuments: a Mooncake trace as one JSON array or as pretty-printed documents
// reads as its JSON lines do (detected too), and a bad record is named by the line it begins
// on; a cut array is an error naming the file.
func TestMooncakeDocuments(t *testing.T) {
	want, _, err := ReadAll(writeTemp(t, "t.jsonl", []byte(mooncakeLines)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	recs := strings.Split(strings.TrimSpace(mooncakeLines), "\n")
	pretty := strings.ReplaceAll(strings.Join(recs, "\n"), ", ", ",\n  ")
	forms := map[string]string{
		"array":        "[" + strings.Join(recs, ",") + "]",
		"pretty-array": "[\n  " + strings.Join(recs, ",\n  ") + "\n]\n",
		"pretty":       pretty,
	}
	for name, content := range forms {
		got, _, err := ReadAll(writeTemp(t, name+".json", []byte(content)), Options{})
		if err != nil || len(got) != len(want) {
			t.Fatalf("%s: %d records, %v", name, len(got), err)
		}
		for i := range got {
			if got[i].Timestamp != want[i].Timestamp || got[i].PromptTokens != want[i].PromptTokens {
				t.Errorf("%s: record %d %+v, want %+v", name, i, got[i], want[i])
			}
		}
	}
	bad := strings.Replace(pretty, `"input_length": 20`, `"input_length": -20`, 1)
	_, _, err = ReadAll(writeTemp(t, "bad.json", []byte(bad)), Options{Format: FormatMooncake})
	if err == nil || !strings.Contains(err.Error(), "bad.json:5:") {
		t.Errorf("bad record: %v, want bad.json:5 (its first line)", err)
	}
	_, _, err = ReadAll(writeTemp(t, "cut.json", []byte(forms["pretty-array"][:60])), Options{Format: FormatMooncake})
	if err == nil || !strings.Contains(err.Error(), "cut.json") || !strings.Contains(err.Error(), "ends inside") {
		t.Errorf("cut array: %v", err)
	}
}
