package tokenizer

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// goldenNames are the real tokenizers whose reference ids are committed under testdata/golden.
var goldenNames = []string{"llama3", "llama3_1", "qwen3", "deepseek_v3", "gptoss", "gpt4o", "llama2", "gemma3"}

// cacheDir is where scripts/fetch-tokenizers.sh puts the real tokenizers.
func cacheDir(t testing.TB) string {
	if d := os.Getenv("REPLAY_TOKENIZER_CACHE"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, ".cache", "tokenizers")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

var (
	loadedMu sync.Mutex
	loaded   = map[string]*HF{}
)

// loadReal loads a cached real tokenizer once per test binary.
func loadReal(t testing.TB, name string) *HF {
	t.Helper()
	loadedMu.Lock()
	defer loadedMu.Unlock()
	if tk, ok := loaded[name]; ok {
		return tk
	}
	path := filepath.Join(cacheDir(t), name, "tokenizer.json")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s missing: run scripts/fetch-tokenizers.sh (%v)", path, err)
	}
	tk, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	loaded[name] = tk.(*HF)
	return loaded[name]
}

// readCorpus returns the texts of testdata/corpus.jsonl.
func readCorpus(t testing.TB) []string { return readCorpusFile(t, "testdata/corpus.jsonl") }

// readCorpusFile returns the texts of a JSON-lines file of {"text": ...}.
func readCorpusFile(t testing.TB, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for n := 1; sc.Scan(); n++ {
		var v struct {
			Text *string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil || v.Text == nil {
			t.Fatalf("%s:%d: want {\"text\": ...}: %v", path, n, err)
		}
		out = append(out, *v.Text)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// readGolden decodes one JSON value per line of a gzipped golden file into fresh T values.
func readGolden[T any](t testing.TB, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v (goldens are made by scripts/gen-goldens.sh)", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []T
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<26)
	for n := 1; sc.Scan(); n++ {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

// firstDiff returns the first index where a and b differ, or -1.
func firstDiff(a, b []int) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

func describe(tk *HF, ids []int, at int) string {
	var parts []string
	for i := max(0, at-3); i < len(ids) && i < at+4; i++ {
		tok, _ := tk.Token(ids[i])
		mark := ""
		if i == at {
			mark = ">>"
		}
		parts = append(parts, fmt.Sprintf("%s%d:%q", mark, ids[i], tok))
	}
	return strings.Join(parts, " ")
}

// TestGolden compares our ids with the Rust reference's for every corpus line, with and
// without special tokens, and our decode with the reference's decode.
func TestGolden(t *testing.T) {
	corpus := readCorpus(t)
	if len(corpus) < 1000 {
		t.Fatalf("corpus has %d lines, want >= 1000", len(corpus))
	}
	for _, name := range goldenNames {
		t.Run(name, func(t *testing.T) {
			tk := loadReal(t, name)
			for _, special := range []bool{false, true} {
				file := "testdata/golden/" + name + ".jsonl.gz"
				if special {
					file = "testdata/golden/" + name + ".special.jsonl.gz"
				}
				want := readGolden[[]int](t, file)
				if len(want) != len(corpus) {
					t.Fatalf("%s has %d lines, corpus %d", file, len(want), len(corpus))
				}
				for i, text := range corpus {
					got := tk.Encode(text, special)
					if at := firstDiff(got, want[i]); at >= 0 {
						t.Fatalf("%s special=%v corpus line %d %q: first difference at position %d\n got: %s\nwant: %s",
							name, special, i+1, text, at, describe(tk, got, at), describe(tk, want[i], at))
					}
					if !special {
						if n := tk.Count(text); n != len(want[i]) {
							t.Fatalf("%s corpus line %d: Count %d, want %d", name, i+1, n, len(want[i]))
						}
					}
				}
			}
			ids := readGolden[[]int](t, "testdata/golden/"+name+".jsonl.gz")
			wantText := readGolden[string](t, "testdata/golden/"+name+".decode.jsonl.gz")
			for i := range ids {
				if got := tk.Decode(ids[i], false); got != wantText[i] {
					t.Fatalf("%s decode of corpus line %d: got %q, want %q", name, i+1, got, wantText[i])
				}
			}
		})
	}
}

// TestRandomGolden compares our ids with the reference's on random strings
// (testdata/random: odd code points of every plane, special-token literals, contractions).
func TestRandomGolden(t *testing.T) {
	corpus := readCorpusFile(t, "testdata/random/corpus.jsonl")
	for _, name := range goldenNames {
		tk := loadReal(t, name)
		want := readGolden[[]int](t, "testdata/random/"+name+".jsonl.gz")
		if len(want) != len(corpus) {
			t.Fatalf("%s: %d golden lines for %d texts", name, len(want), len(corpus))
		}
		for i, text := range corpus {
			if got := tk.Encode(text, false); firstDiff(got, want[i]) >= 0 {
				at := firstDiff(got, want[i])
				t.Fatalf("%s random line %d %q: first difference at position %d\n got: %s\nwant: %s",
					name, i+1, text, at, describe(tk, got, at), describe(tk, want[i], at))
			}
		}
	}
}

// TestRoundTrip checks decode(encode(x)) == x on every corpus line for the byte-level
// tokenizers, which are lossless (the SentencePiece ones are covered by the reference's decode
// in TestGolden, which defines their leading-space loss).
func TestRoundTrip(t *testing.T) {
	corpus := readCorpus(t)
	for _, name := range []string{"llama3", "llama3_1", "qwen3", "deepseek_v3", "gptoss", "gpt4o"} {
		tk := loadReal(t, name)
		for i, text := range corpus {
			if name == "qwen3" {
				text = norm.NFC.String(text) // Qwen normalizes to NFC first, on purpose
			}
			if got := tk.Decode(tk.Encode(text, false), false); got != text {
				t.Fatalf("%s corpus line %d: decode(encode(x)) = %q, want %q", name, i+1, got, text)
			}
		}
	}
}
