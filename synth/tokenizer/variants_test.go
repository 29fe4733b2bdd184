package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestVariants runs the components the real tokenizers do not use (Metaspace, Digits,
// Whitespace, every Split behaviour with and without invert, NFKC, Lowercase, Strip, the regexp2
// fallback, added-token flags, ByteLevel with its own regex) on patched real tokenizer.json
// files, against ids the Rust reference made for the same patches (testdata/variants/gen.js).
func TestVariants(t *testing.T) {
	var spec struct {
		Texts    []string `json:"texts"`
		Variants []struct {
			Name      string                     `json:"name"`
			Base      string                     `json:"base"`
			Patch     map[string]json.RawMessage `json:"patch"`
			AddTokens []json.RawMessage          `json:"add_tokens"`
		} `json:"variants"`
	}
	readJSON(t, "testdata/variants/variants.json", &spec)
	var want map[string]struct {
		IDs     [][]int  `json:"ids"`
		Special [][]int  `json:"special"`
		Decoded []string `json:"decoded"`
	}
	readJSON(t, "testdata/variants/ids.json", &want)
	bases := map[string]string{
		"mistral": filepath.Join("..", "..", "samples", "tokenizer", "mistral", "tokenizer.json"),
		"llama3":  filepath.Join(cacheDir(t), "llama3", "tokenizer.json"),
	}
	baseJSON := map[string]map[string]json.RawMessage{}
	for _, v := range spec.Variants {
		t.Run(v.Name, func(t *testing.T) {
			base, ok := baseJSON[v.Base]
			if !ok {
				readJSON(t, bases[v.Base], &base)
				baseJSON[v.Base] = base
			}
			doc := map[string]json.RawMessage{}
			for k, val := range base {
				doc[k] = val
			}
			for k, val := range v.Patch {
				doc[k] = val
			}
			if len(v.AddTokens) > 0 {
				var added []json.RawMessage
				if err := json.Unmarshal(doc["added_tokens"], &added); err != nil {
					t.Fatal(err)
				}
				doc["added_tokens"], _ = json.Marshal(append(added, v.AddTokens...))
			}
			data, _ := json.Marshal(doc)
			tk, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			w, ok := want[v.Name]
			if !ok {
				t.Fatalf("no reference ids for %s: run testdata/variants/gen.js", v.Name)
			}
			for i, text := range spec.Texts {
				if got := tk.Encode(text, false); firstDiff(got, w.IDs[i]) >= 0 {
					t.Errorf("%q: got %v, want %v", text, got, w.IDs[i])
				}
				if got := tk.Encode(text, true); firstDiff(got, w.Special[i]) >= 0 {
					t.Errorf("%q with special tokens: got %v, want %v", text, got, w.Special[i])
				}
				if got := tk.Decode(w.IDs[i], false); got != w.Decoded[i] {
					t.Errorf("decode of %q: got %q, want %q", text, got, w.Decoded[i])
				}
			}
		})
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run scripts/fetch-tokenizers.sh for cached tokenizers)", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
