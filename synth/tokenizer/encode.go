package tokenizer

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// HF is a tokenizer loaded from a tokenizer.json, implemented in Go.
type HF struct {
	model      *bpe
	raw        bool // the pre-tokenizer ends with ByteLevel: words are raw bytes
	normalizer normalizer
	pre        preTokenizer
	post       postProcessor
	dec        decoder

	addedByID      map[int32]*addedToken
	addedByContent map[string]int32
	rawMatch       *addedMatcher
	normMatch      *addedMatcher
	vocabSize      int
	// lineChunks: a segment the cache missed may be encoded in chunks cut at line starts
	// (see linechunks.go).
	lineChunks bool

	pool sync.Pool // *scratch
}

// scratch holds the buffers of one encode call.
type scratch struct {
	segs   []segment
	segs2  []segment
	words  []word
	words2 []word
	ms     [][2]int
	ids    []int
	bpe    bpeScratch
}

var _ Tokenizer = (*HF)(nil)

// Encode implements Tokenizer.
func (t *HF) Encode(text string, addSpecial bool) []int { return t.encodeIDs(text, addSpecial, nil) }

// Count implements Tokenizer.
func (t *HF) Count(text string) int { return t.count(text, nil) }

func (t *HF) encodeIDs(text string, addSpecial bool, cache *segmentCache) []int {
	sc := t.pool.Get().(*scratch)
	ids := t.encode(make([]int, 0, len(text)/4+4), text, sc, cache)
	t.release(sc)
	if addSpecial && t.post != nil {
		ids = t.post.process(ids)
	}
	if ids == nil {
		ids = []int{}
	}
	return ids
}

// count encodes into a reused buffer instead of a new slice.
func (t *HF) count(text string, cache *segmentCache) int {
	sc := t.pool.Get().(*scratch)
	ids := t.encode(sc.ids[:0], text, sc, cache)
	n := len(ids)
	sc.ids = ids
	t.release(sc)
	return n
}

// release returns scratch buffers to the pool, unless one huge text (over a million words) made
// them too big to keep around (they also point into that text, which would stay alive with
// them until the pool is emptied at a garbage collection).
func (t *HF) release(sc *scratch) {
	const keep = 1 << 20
	if cap(sc.words) > keep || cap(sc.words2) > keep || cap(sc.ids) > keep || cap(sc.bpe.syms) > keep {
		return
	}
	t.pool.Put(sc)
}

// encode appends the ids of text without post-processing: added tokens are split off first
// (on the raw text, then on each normalized piece), the rest is normalized, pre-tokenized and
// run through the model, as the crate's encode_single_sequence does. With a cache, the ids of
// long text segments come from it, or go into it.
func (t *HF) encode(dst []int, text string, sc *scratch, cache *segmentCache) []int {
	text = validUTF8(text)
	segs := t.rawMatch.split(sc.segs[:0], text, true)
	sc.segs = segs
	for _, sg := range segs {
		if sg.id >= 0 {
			dst = append(dst, int(sg.id))
			continue
		}
		if cache == nil || len(sg.text) < minCachedSegment {
			dst = t.encodeSegment(dst, sg, sc)
			continue
		}
		k := segmentKey{text: sg.text, first: t.keyFirst(sg.first)}
		if ids, ok := cache.get(k); ok {
			for _, id := range ids {
				dst = append(dst, int(id))
			}
			continue
		}
		start := len(dst)
		if t.lineChunks && (len(sg.text) >= 2*minChunk || headerCut(sg.text) > 0) {
			dst = t.encodeChunks(dst, sg, sc, cache)
		} else {
			dst = t.encodeSegment(dst, sg, sc)
		}
		cache.put(sg.text, k.first, dst[start:])
	}
	return dst
}

// encodeSegment appends the ids of one text segment (no raw added token inside): normalized,
// split on the added tokens that match only after normalization, pre-tokenized, encoded.
func (t *HF) encodeSegment(dst []int, sg segment, sc *scratch) []int {
	s := sg.text
	if t.normalizer != nil {
		s = t.normalizer.normalize(s)
	}
	if t.normMatch.empty() {
		return t.encodeText(dst, s, sg.first, sc)
	}
	subs := t.normMatch.split(sc.segs2[:0], s, sg.first)
	for _, sub := range subs {
		if sub.id >= 0 {
			dst = append(dst, int(sub.id))
		} else {
			dst = t.encodeText(dst, sub.text, sub.first, sc)
		}
	}
	sc.segs2 = subs[:0]
	return dst
}

// encodeText pre-tokenizes one normalized piece and runs each word through the model.
func (t *HF) encodeText(dst []int, s string, first bool, sc *scratch) []int {
	if s == "" {
		return dst
	}
	if t.pre == nil {
		return t.model.appendWord(dst, s, t.raw, &sc.bpe)
	}
	var words []word
	if q, ok := t.pre.(preSequence); ok {
		words = q.run(word{s: s, first: first}, sc)
	} else {
		words = t.pre.split(sc.words[:0], word{s: s, first: first}, &sc.ms)
		sc.words = words
	}
	for _, w := range words {
		dst = t.model.appendWord(dst, w.s, t.raw, &sc.bpe)
	}
	return dst
}

// validUTF8 replaces each invalid byte with U+FFFD; the crate only ever sees valid UTF-8.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r)
		i += w
	}
	return b.String()
}

// Decode implements Tokenizer: the tokens of the ids (added ones included unless skipped) go
// through the decoder together, as the crate's decode does. Unknown ids are left out.
func (t *HF) Decode(ids []int, skipSpecial bool) string {
	toks := make([]string, 0, len(ids))
	for _, id := range ids {
		if id < 0 || id > 1<<31-1 {
			continue
		}
		if a, ok := t.addedByID[int32(id)]; ok {
			if skipSpecial && a.Special {
				continue
			}
			toks = append(toks, a.Content)
			continue
		}
		if p, ok := t.model.piece(id); ok {
			toks = append(toks, p)
		}
	}
	if t.dec == nil {
		return strings.Join(toks, " ")
	}
	return strings.Join(t.dec.decodeChain(toks), "")
}

// VocabSize implements Tokenizer.
func (t *HF) VocabSize() int { return t.vocabSize }

// Token implements Tokenizer.
func (t *HF) Token(id int) (string, bool) {
	if id < 0 || id > 1<<31-1 {
		return "", false
	}
	if a, ok := t.addedByID[int32(id)]; ok {
		return a.Content, true
	}
	return t.model.piece(id)
}

// ID implements Tokenizer.
func (t *HF) ID(token string) (int, bool) {
	if id, ok := t.addedByContent[token]; ok {
		return int(id), true
	}
	id, ok := t.model.vocab[token]
	return int(id), ok
}

// IsSpecial implements Tokenizer.
func (t *HF) IsSpecial(id int) bool {
	if id < 0 || id > 1<<31-1 {
		return false
	}
	a, ok := t.addedByID[int32(id)]
	return ok && a.Special
}
