package tokenizer

import (
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
)

// TestCountMemoExact: the memo's count is len(Encode) on every real tokenizer, for the
// reference corpus cold and warm, and for texts that share long openings with earlier ones and
// then differ (a session's growing turns, a shared system prompt, an opening cut mid-word, added
// tokens inside), with a memo small enough that its generations turn over. The memo is counted
// to have been used (hits) where it applies, so a memo that never matched would not pass for an
// exact one.
func TestCountMemoExact(t *testing.T) {
	corpus := readCorpus(t)
	for _, name := range goldenNames {
		t.Run(name, func(t *testing.T) {
			tk := loadReal(t, name)
			var added []string
			for s := range tk.addedByContent {
				added = append(added, s)
			}
			sort.Strings(added)
			check := func(m *Memo, text string) {
				t.Helper()
				for _, special := range []bool{false, true} {
					if got, want := m.Count(text, special), len(tk.Encode(text, special)); got != want {
						t.Fatalf("Count(%q..., %v) = %d, Encode gives %d ids", text[:min(len(text), 80)], special, got, want)
					}
				}
			}
			r := rand.New(rand.NewPCG(3, 4))
			for _, limit := range []int{1024, 1 << 20} {
				m := tk.WithCountMemo(limit)
				for range 2 {
					for _, text := range corpus {
						check(m, text)
					}
				}
				for conv := range 40 {
					var sb strings.Builder
					if conv%2 == 0 {
						sb.WriteString(corpus[0] + " " + corpus[1] + " ")
					}
					for turn := range 6 {
						sb.WriteString(corpus[r.IntN(len(corpus))] + " " + corpus[r.IntN(len(corpus))])
						if len(added) > 0 && turn%3 == 2 {
							sb.WriteString(added[r.IntN(len(added))])
						}
						text := sb.String()
						check(m, text)
						cut := r.IntN(len(text) + 1) // the same opening, cut anywhere, then new text
						check(m, strings.ToValidUTF8(text[:cut], "")+corpus[r.IntN(len(corpus))])
						sb.WriteString(" ")
					}
				}
				// The memo serves the words a SentencePiece-style model cuts into pieces (Llama 2's,
				// Gemma's: a whole prompt is one such word); byte-level models' words are short.
				if cuts := tk.model.chunkable && !tk.raw; cuts && m.hits == 0 {
					t.Errorf("memo of %d entries: no lookup hit", limit)
				}
			}
		})
	}
}
