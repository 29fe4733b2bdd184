package tokenizer

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// chunkedTexts joins corpus lines with the separators that make or almost make a line start
// (a newline before a letter, before a digit, a space or punctuation; CRLF; blank lines;
// punctuation that swallows newlines), long enough that the texts are cut several times.
func chunkedTexts(corpus []string, n int, seed uint64) []string {
	seps := []string{"\n", "\n\n", ".\n\n", "\r\n", " \n", "\n ", "\n1. ", ":\n", "\n\n\n", "\n```go\nfunc f() {}\n```\n", "!\n", "\n\t"}
	r := rand.New(rand.NewPCG(seed, 7))
	texts := make([]string, n)
	for i := range texts {
		var sb strings.Builder
		for sb.Len() < 3*minChunk+r.IntN(6*minChunk) {
			sb.WriteString(corpus[r.IntN(len(corpus))])
			sb.WriteString(seps[r.IntN(len(seps))])
		}
		texts[i] = sb.String()
	}
	return texts
}

// TestLineChunksExact: for every reference tokenizer, a cached encode of texts that get cut
// into line chunks (first cold, then with the chunks cached and the whole texts new) gives the
// uncached tokenizer's ids, which TestGolden holds to the reference. It also says which
// tokenizers chunk, so a change to lineChunkable is seen.
func TestLineChunksExact(t *testing.T) {
	corpus := readCorpus(t)
	wantChunk := map[string]bool{"llama3": true, "llama3_1": true, "qwen3": true, "gpt4o": true, "gptoss": true}
	for _, name := range goldenNames {
		t.Run(name, func(t *testing.T) {
			tk := loadReal(t, name)
			if tk.lineChunks != wantChunk[name] {
				t.Fatalf("lineChunks = %v, want %v", tk.lineChunks, wantChunk[name])
			}
			c := tk.WithSegmentCache(64 << 20)
			texts := chunkedTexts(corpus, 40, 1)
			// Pass 0 counts the texts on their own (as a response is counted), pass 1 encodes
			// them after a short header line (as a chat template wraps a message: the text is
			// then a chunk that pass 0 cached as a whole input), pass 2 between new lines (the
			// cached chunks inside new segments).
			for pass := range 3 {
				for i, text := range texts {
					switch pass {
					case 0:
						if got, want := c.Count(text), tk.Count(text); got != want {
							t.Fatalf("text %d: Count %d, want %d", i, got, want)
						}
						continue
					case 1:
						text = "assistant\n" + text
					case 2:
						text = "A new opening line that was not seen before.\n" + text + "\nAnd a new end."
					}
					want := tk.Encode(text, true)
					got := c.Encode(text, true)
					if at := firstDiff(got, want); at >= 0 {
						t.Fatalf("pass %d text %d: first difference at %d\n got: %s\nwant: %s", pass, i, at, describe(tk, got, at), describe(tk, want, at))
					}
				}
			}
			if tk.lineChunks && c.cache.hits == 0 {
				t.Errorf("no chunk was served from the cache")
			}
		})
	}
}

// FuzzLineChunks: chunked and whole encodes agree on any text, for Qwen3 (the seed corpus in
// testdata/fuzz/FuzzLineChunks runs under plain go test).
func FuzzLineChunks(f *testing.F) {
	corpus := readCorpus(f)
	for _, s := range chunkedTexts(corpus, 3, 2) {
		f.Add(s)
	}
	tk := loadReal(f, "qwen3")
	f.Fuzz(func(t *testing.T, s string) {
		// Pad short inputs past two chunks, keeping the fuzzed bytes at the cut points.
		for len(s) < 3*minChunk {
			s += "\n" + s + "x"
		}
		want := tk.Encode(s, false)
		got := tk.WithSegmentCache(1<<20).Encode(s, false)
		if at := firstDiff(got, want); at >= 0 {
			t.Fatalf("first difference at %d\n got: %s\nwant: %s", at, describe(tk, got, at), describe(tk, want, at))
		}
	})
}
