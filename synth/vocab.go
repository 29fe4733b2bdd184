package synth

import (
	"fmt"
	"slices"
	"strings"

	"github.com/llm-replay/replay/synth/tokenizer"
)

// minPoolWords is the smallest word pool we accept: fewer words would make distinct blocks
// collide too often to keep prefixes apart.
const minPoolWords = 256

// vocab is the pool of words prompts are made of: lowercase ASCII words that are one token
// both at the start of a text ("river") and after a space (" river"), so a prompt is a plain
// sentence-like run of words whose every word is exactly one token. Pre-tokenizers split byte-
// level BPE text at spaces and SentencePiece vocabularies have no piece spanning "▁", so words
// never merge across their boundaries; buildVocab checks that on the real tokenizer anyway.
type vocab struct {
	word   []string // the word, without a space
	spaced []string // " " + word, as it follows another word
	head   []int    // id of the word at the start of a text or message
	mid    []int    // id of the word after a space
	// prefix and suffix are the special tokens Encode(text, true) adds around the text (a BOS
	// for Llama-2/Mistral, nothing for Qwen).
	prefix, suffix []int
}

func isPoolWord(w string) bool {
	if len(w) < 2 || len(w) > 12 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// buildVocab finds the pool words of tok. It is deterministic: candidates are taken in id order
// and the checks use fixed orders, so every machine gets the same pool for the same tokenizer.
func buildVocab(tok tokenizer.Tokenizer) (*vocab, error) {
	v := &vocab{}
	seen := map[string]bool{}
	for id := 0; id < tok.VocabSize(); id++ {
		if tok.IsSpecial(id) {
			continue
		}
		if _, ok := tok.Token(id); !ok {
			continue
		}
		w := strings.TrimPrefix(tok.Decode([]int{id}, false), " ")
		if !isPoolWord(w) || seen[w] {
			continue
		}
		seen[w] = true
		h := tok.Encode(w, false)
		if len(h) != 1 || tok.IsSpecial(h[0]) {
			continue
		}
		p := tok.Encode(w+" "+w, false)
		if len(p) != 2 || p[0] != h[0] || tok.IsSpecial(p[1]) {
			continue
		}
		if tok.Decode(p, false) != w+" "+w {
			continue
		}
		v.word = append(v.word, w)
		v.head = append(v.head, h[0])
		v.mid = append(v.mid, p[1])
	}
	if len(v.word) < minPoolWords {
		return nil, fmt.Errorf("synth: the tokenizer has only %d single-token lowercase words (need %d): cannot build prompts from ordinary words", len(v.word), minPoolWords)
	}
	if err := v.prune(tok); err != nil {
		return nil, err
	}
	v.spaced = make([]string, len(v.word))
	for i, w := range v.word {
		v.spaced[i] = " " + w
	}
	// The post-processor's special tokens, found around a known word.
	plain := []int{v.head[0]}
	full := tok.Encode(v.word[0], true)
	at := -1
	for i := 0; i+len(plain) <= len(full); i++ {
		if slices.Equal(full[i:i+len(plain)], plain) {
			at = i
			break
		}
	}
	if at < 0 {
		return nil, fmt.Errorf("synth: encoding %q with special tokens does not contain its plain encoding", v.word[0])
	}
	v.prefix = slices.Clone(full[:at])
	v.suffix = slices.Clone(full[at+len(plain):])
	return v, nil
}

// prune drops words that change tokenization next to other words: it encodes the whole pool
// as running text in three fixed orders and removes the words around every mismatch until the
// text round-trips.
func (v *vocab) prune(tok tokenizer.Tokenizer) error {
	for round := 0; round < 50; round++ {
		bad := map[int]bool{}
		for _, order := range v.orders() {
			ids, text := v.renderInts(order)
			got := tok.Encode(text, false)
			if i := firstDiff(got, ids); i >= 0 {
				for _, j := range []int{i - 1, i, i + 1} {
					if j >= 0 && j < len(order) {
						bad[order[j]] = true
					}
				}
			}
		}
		if len(bad) == 0 {
			return nil
		}
		keep := 0
		for i := range v.word {
			if !bad[i] {
				v.word[keep], v.head[keep], v.mid[keep] = v.word[i], v.head[i], v.mid[i]
				keep++
			}
		}
		v.word, v.head, v.mid = v.word[:keep], v.head[:keep], v.mid[:keep]
		if keep < minPoolWords {
			break
		}
	}
	return fmt.Errorf("synth: the tokenizer merges its own words across spaces; no stable word pool found (%d words left)", len(v.word))
}

// orders gives three fixed orders of the pool: id order, reversed, and a seeded shuffle.
func (v *vocab) orders() [][]int {
	n := len(v.word)
	a, b, c := make([]int, n), make([]int, n), make([]int, n)
	for i := range n {
		a[i], b[i], c[i] = i, n-1-i, i
	}
	r := newRNG(key(0, domainRepair, uint64(n)))
	for i := n - 1; i > 0; i-- {
		j := r.below(i + 1)
		c[i], c[j] = c[j], c[i]
	}
	return [][]int{a, b, c}
}

// render turns pool indexes into ids and text; the first word starts the text (no space).
func (v *vocab) render(words []int32) ([]int, string) {
	ids := make([]int, len(words))
	for i, w := range words {
		ids[i] = v.idOf(i, w)
	}
	return ids, v.renderText(words)
}

// renderText is render's text alone: the verify loop compares the encoding with the words'
// ids in place (firstDiffWords), so building them was 17% of synthesis's allocation.
func (v *vocab) renderText(words []int32) string {
	size := 0
	for _, w := range words {
		size += len(v.spaced[w])
	}
	var sb strings.Builder
	sb.Grow(size)
	for i, w := range words {
		if i == 0 {
			sb.WriteString(v.word[w])
			continue
		}
		sb.WriteString(v.spaced[w])
	}
	return sb.String()
}

// idOf is the id of word w at position i of a text: its head id first, its mid id after.
func (v *vocab) idOf(i int, w int32) int {
	if i == 0 {
		return v.head[w]
	}
	return v.mid[w]
}

// firstDiffWords is firstDiffParts(got, v.prefix, the ids of words, v.suffix) without building
// the ids.
func (v *vocab) firstDiffWords(got []int, words []int32) int {
	if d := firstDiff(got[:min(len(got), len(v.prefix))], v.prefix); d >= 0 {
		return d
	}
	off := len(v.prefix)
	for i, w := range words {
		if off+i >= len(got) {
			return off + i
		}
		if got[off+i] != v.idOf(i, w) {
			return off + i
		}
	}
	d := firstDiffParts(got[min(len(got), off+len(words)):], v.suffix)
	if d < 0 {
		return -1
	}
	return off + len(words) + d
}

// renderInts is render for int indexes, used while the pool is being checked.
func (v *vocab) renderInts(words []int) ([]int, string) {
	ids := make([]int, len(words))
	var sb strings.Builder
	for i, w := range words {
		if i == 0 {
			ids[i] = v.head[w]
			sb.WriteString(v.word[w])
			continue
		}
		ids[i] = v.mid[w]
		sb.WriteByte(' ')
		sb.WriteString(v.word[w])
	}
	return ids, sb.String()
}

// firstDiff returns the first index where a and b differ (or the shorter length), -1 if equal.
func firstDiff(a, b []int) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return n
	}
	return -1
}

// firstDiffParts is firstDiff(a, the concatenation of parts), without building it: the
// verify loop compares every prompt's encoding against its prefix, ids and suffix, and the
// joined copy was 12% of synthesis's allocation.
func firstDiffParts(a []int, parts ...[]int) int {
	off := 0
	for _, p := range parts {
		rest := a[min(off, len(a)):]
		if d := firstDiff(rest, p); d >= 0 && d < len(p) {
			return off + d
		}
		off += len(p)
	}
	if len(a) != off {
		return min(len(a), off)
	}
	return -1
}
