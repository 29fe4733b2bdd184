package tokenizer

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFastJSONMatchesEncodingJSON checks the vocabulary and merge scanners against
// encoding/json on the real files and on awkward inputs.
func TestFastJSONMatchesEncodingJSON(t *testing.T) {
	// A real file (Mistral's 32k; the big ones are covered by the goldens, which parse them
	// with these scanners), then the [a, b] merge format on a small input.
	for _, name := range []string{"llama2"} {
		data, err := os.ReadFile(filepath.Join(cacheDir(t), name, "tokenizer.json"))
		if err != nil {
			t.Fatalf("%v: run scripts/fetch-tokenizers.sh", err)
		}
		var f struct {
			Model struct {
				Vocab  json.RawMessage `json:"vocab"`
				Merges json.RawMessage `json:"merges"`
			} `json:"model"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		fast, err := scanVocab(f.Model.Vocab)
		if err != nil {
			t.Fatalf("%s: scanVocab: %v", name, err)
		}
		var slow map[string]int32
		if err := json.Unmarshal(f.Model.Vocab, &slow); err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(fast, slow) {
			t.Fatalf("%s: scanned vocab differs from encoding/json's", name)
		}
		pairs := pairsFormat(f.Model.Merges)
		flat, err := scanStrings(f.Model.Merges, pairs)
		if err != nil {
			t.Fatalf("%s: scanStrings: %v", name, err)
		}
		var want []string
		if pairs {
			var p [][]string
			if err := json.Unmarshal(f.Model.Merges, &p); err != nil {
				t.Fatal(err)
			}
			for _, x := range p {
				want = append(want, x...)
			}
		} else if err := json.Unmarshal(f.Model.Merges, &want); err != nil {
			t.Fatal(err)
		}
		if len(flat) != len(want) {
			t.Fatalf("%s: %d merge strings, want %d", name, len(flat), len(want))
		}
		for i := range flat {
			if flat[i] != want[i] {
				t.Fatalf("%s: merge string %d = %q, want %q", name, i, flat[i], want[i])
			}
		}
	}
	pairsIn := `[["a", "b"], ["\u0120", "ab"] , ["x\"y", "\n"]]`
	if flat, err := scanStrings([]byte(pairsIn), pairsFormat([]byte(pairsIn))); err != nil ||
		strings.Join(flat, "|") != "a|b|\u0120|ab|x\"y|\n" {
		t.Errorf("pairs: got %q, %v", flat, err)
	}
	for _, in := range []string{`{"a\"b": 1, "\u00e9\ud83d\ude00": 2, "x": -3}`, `{}`, "{\"\xff\": 1}", ` { "a" : 1 } `} {
		got, err := decodeVocab(json.RawMessage(in))
		var want map[string]int32
		werr := json.Unmarshal([]byte(in), &want)
		if (err != nil) != (werr != nil) || !maps.Equal(got, want) {
			t.Errorf("%q: got %v, %v; encoding/json %v, %v", in, got, err, want, werr)
		}
	}
	for _, bad := range []string{`{"a": 1,}`, `{"a": 1.5}`, `{"a" 1}`, `{"a": 1} x`} {
		if _, err := decodeVocab(json.RawMessage(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
