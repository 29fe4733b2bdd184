package tokenizer

import (
	"slices"
	"strings"
	"testing"
)

// TestChunkingIsExact: cutting long SentencePiece words before "▁" (bpe.chunkable) must give
// the ids of merging the whole word at once.
func TestChunkingIsExact(t *testing.T) {
	corpus := readCorpus(t)
	long := strings.Join(corpus[:300], " ")
	for _, name := range []string{"llama2", "gemma3"} {
		tk := loadReal(t, name)
		if !tk.model.chunkable {
			t.Fatalf("%s: expected chunkable", name)
		}
		var sc bpeScratch
		for _, text := range append(corpus, long) {
			word := tk.normalizer.normalize(text)
			if len(word) < chunkMin {
				continue
			}
			whole := tk.model.mergeAll(tk.model.initial(nil, word, false, &sc), &sc)
			var want []int
			for _, id := range whole {
				want = append(want, int(id))
			}
			if got := tk.model.appendChunks(nil, word, &sc); !slices.Equal(got, want) {
				t.Fatalf("%s: %q: chunked %v, whole %v", name, text, got, want)
			}
		}
	}
}
