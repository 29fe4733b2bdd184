package tokenizer

import (
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
)

// TestCachedGolden: the cached tokenizer gives the reference's ids on every corpus line, cold
// (filling the cache) and warm (reading it).
func TestCachedGolden(t *testing.T) {
	corpus := readCorpus(t)
	for _, name := range goldenNames {
		t.Run(name, func(t *testing.T) {
			c := loadReal(t, name).WithSegmentCache(64 << 20)
			want := readGolden[[]int](t, "testdata/golden/"+name+".special.jsonl.gz")
			for pass := range 2 {
				for i, text := range corpus {
					got := c.Encode(text, true)
					if at := firstDiff(got, want[i]); at >= 0 {
						t.Fatalf("pass %d, corpus line %d: first difference at %d\n got: %s\nwant: %s", pass, i+1, at, describe(c.HF, got, at), describe(c.HF, want[i], at))
					}
				}
			}
		})
	}
}

// TestCachedChatShaped builds growing conversations out of corpus lines wrapped in each
// tokenizer's own added tokens, so segments recur at the start and in the middle of inputs,
// and checks the cached ids against the uncached tokenizer's (itself checked by TestGolden).
// A small cache makes the generations turn over during the test.
func TestCachedChatShaped(t *testing.T) {
	corpus := readCorpus(t)
	for _, name := range goldenNames {
		t.Run(name, func(t *testing.T) {
			tk := loadReal(t, name)
			var added []string
			for s := range tk.addedByContent {
				added = append(added, s)
			}
			sort.Strings(added)
			if len(added) == 0 {
				t.Fatal("no added tokens")
			}
			r := rand.New(rand.NewPCG(1, 2))
			for _, limit := range []int{1 << 16, 64 << 20} {
				c := tk.WithSegmentCache(limit)
				for conv := range 60 {
					var sb strings.Builder
					if conv%3 == 0 { // a shared opening, as a system prompt is
						sb.WriteString(corpus[0] + corpus[1])
					}
					for turn := range 6 {
						open, close := added[r.IntN(len(added))], added[r.IntN(len(added))]
						sb.WriteString(open + corpus[r.IntN(len(corpus))] + " " + corpus[r.IntN(len(corpus))] + close)
						text := sb.String()
						for _, special := range []bool{false, true} {
							want := tk.Encode(text, special)
							got := c.Encode(text, special)
							if at := firstDiff(got, want); at >= 0 {
								t.Fatalf("limit %d conversation %d turn %d special=%v: first difference at %d\n got: %s\nwant: %s", limit, conv, turn, special, at, describe(tk, got, at), describe(tk, want, at))
							}
							if n := c.Count(text); n != tk.Count(text) {
								t.Fatalf("limit %d conversation %d turn %d: Count %d, want %d", limit, conv, turn, n, tk.Count(text))
							}
						}
					}
				}
				c.cache.mu.Lock()
				size, entries, hits := c.cache.size, len(c.cache.cur)+len(c.cache.old), c.cache.hits
				c.cache.mu.Unlock()
				if size > limit/2 {
					t.Errorf("limit %d: current generation holds %d bytes", limit, size)
				}
				if entries == 0 || hits == 0 {
					t.Errorf("limit %d: %d entries, %d hits: the cache did not serve", limit, entries, hits)
				}
			}
		})
	}
}
