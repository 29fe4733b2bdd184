package tokenizer

import (
	"hash/maphash"
	"sync"
)

// Counting with a memo of openings. A server that only has to say how many tokens a prompt is
// (replay's simulator answering usage) tokenizes every prompt in full, and a day of traffic is
// mostly prompts that begin as earlier ones did: a session's next turn holds its last, many
// requests share a system prompt or a document. A SentencePiece-style model (Llama 2's,
// Mistral's, Gemma's) takes a whole prompt as one long word and cuts it into pieces before
// each "▁" no token spans (appendChunks); a cut depends on the two runes around it alone, and
// each piece's ids on the piece alone. So the count up to a cut is the same for every text
// that begins with the same bytes up to there: the memo keeps it, keyed by a hash of those
// bytes, at the first cut past every memoSpan bytes, and a later text finds its longest
// remembered opening by hashing its bytes and counts only the rest. What is skipped is the
// model's per-piece work, most of an encode's time; the text is still normalized and split at
// added tokens in full. The key is 128 bits from two seeded hashes, so a false match is not a
// practical concern. Byte-level models' words are short and are counted as the model counts
// them. TestCountMemoExact and FuzzEncode hold the counts to len(Encode) on the real tokenizers.

// Memo counts tokens as t does, with a bounded memo of text prefixes. Safe for concurrent use.
type Memo struct {
	t     *HF
	seeds [2]maphash.Seed
	// post is how many ids the post-processor adds to a sequence (a BOS, an EOS).
	post int

	mu       sync.Mutex
	cur, old map[memoKey]int32
	limit    int // entries a generation holds before it becomes the old one
	hits     int // lookups answered, for the tests
}

type memoKey [2]uint64

// WithCountMemo returns a counter of t's with a memo of up to about 2*entries prefixes
// (about 40 bytes each).
func (t *HF) WithCountMemo(entries int) *Memo {
	m := &Memo{t: t, seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()},
		cur: map[memoKey]int32{}, limit: max(entries, 1024)}
	if t.post != nil {
		m.post = len(t.post.process([]int{}))
	}
	return m
}

// Count is len(t.Encode(text, addSpecial)).
func (m *Memo) Count(text string, addSpecial bool) int {
	sc := m.t.pool.Get().(*scratch)
	n := m.count(validUTF8(text), sc)
	m.t.release(sc)
	if addSpecial {
		n += m.post
	}
	return n
}

// count mirrors HF.encode's walk over added tokens, normalized pieces and words, counting.
func (m *Memo) count(text string, sc *scratch) int {
	t := m.t
	segs := t.rawMatch.split(sc.segs[:0], text, true)
	sc.segs = segs
	n := 0
	for _, sg := range segs {
		if sg.id >= 0 {
			n++
			continue
		}
		s := sg.text
		if t.normalizer != nil {
			s = t.normalizer.normalize(s)
		}
		if t.normMatch.empty() {
			n += m.countText(s, sg.first, sc)
			continue
		}
		subs := t.normMatch.split(sc.segs2[:0], s, sg.first)
		for _, sub := range subs {
			if sub.id >= 0 {
				n++
			} else {
				n += m.countText(sub.text, sub.first, sc)
			}
		}
		sc.segs2 = subs[:0]
	}
	return n
}

// countText counts one normalized piece: its words, as encodeText makes them; a long word the
// model cuts into pieces (appendChunks) through the memo.
func (m *Memo) countText(s string, first bool, sc *scratch) int {
	if s == "" {
		return 0
	}
	t := m.t
	if t.pre == nil {
		return m.word(s, sc)
	}
	var words []word
	if q, ok := t.pre.(preSequence); ok {
		words = q.run(word{s: s, first: first}, sc)
	} else {
		words = t.pre.split(sc.words[:0], word{s: s, first: first}, &sc.ms)
		sc.words = words
	}
	n := 0
	for _, w := range words {
		n += m.word(w.s, sc)
	}
	return n
}

// word counts one word: through the memo when the model cuts it into pieces, else as the model
// encodes it.
func (m *Memo) word(w string, sc *scratch) int {
	if m.t.model.chunks(w, m.t.raw) {
		return m.chunked(w, sc)
	}
	return m.wordCount(w, sc)
}

// chunked counts a long word the model cuts into pieces (appendChunks). Its pieces' cuts depend
// on the two runes around each cut alone, so the pieces of w[:c], for a cut c, are those of any
// word that begins with w[:c] and is cut at c too, and so is their count. The memo keeps that
// count at the first cut past every memoSpan bytes, keyed by a hash of w[:c]: the longest
// remembered opening is found by hashing the word's bytes, and only the rest is counted.
func (m *Memo) chunked(w string, sc *scratch) int {
	var h, at [2]maphash.Hash
	h[0].SetSeed(m.seeds[0])
	h[1].SetSeed(m.seeds[1])
	at = h
	from, n, prev := 0, 0, 0
	for c := m.t.model.cutFrom(w, memoSpan); c < len(w); c = m.t.model.cutFrom(w, c+memoSpan) {
		addBytes(&h, w[prev:c])
		prev = c
		v, ok := m.get(memoKey{h[0].Sum64(), h[1].Sum64()})
		if !ok {
			break
		}
		from, n, at = c, int(v), h
	}
	h, prev = at, from
	for c := m.t.model.cutFrom(w, from+memoSpan); ; c = m.t.model.cutFrom(w, c+memoSpan) {
		n += m.piecesCount(w[prev:min(c, len(w))], sc)
		if c >= len(w) {
			return n
		}
		addBytes(&h, w[prev:c])
		prev = c
		m.put(memoKey{h[0].Sum64(), h[1].Sum64()}, int32(n))
	}
}

// memoSpan is the least distance, in bytes, between the memo's cuts in a word: a lookup per
// span, and an entry per span of new text.
const memoSpan = 1024

// addBytes adds s to both running hashes.
func addBytes(h *[2]maphash.Hash, s string) {
	h[0].WriteString(s)
	h[1].WriteString(s)
}

// piecesCount counts the ids of s, a run of a chunked word's pieces that starts at a cut (or
// the word's start) and ends at one (or the word's end), piece by piece as appendChunks does.
func (m *Memo) piecesCount(s string, sc *scratch) int {
	ids := m.t.model.appendChunks(sc.ids[:0], s, &sc.bpe)
	sc.ids = ids[:0]
	return len(ids)
}

// wordCount is how many ids the model gives one word (appendWord, whose pieces when long).
func (m *Memo) wordCount(s string, sc *scratch) int {
	ids := m.t.model.appendWord(sc.ids[:0], s, m.t.raw, &sc.bpe)
	sc.ids = ids[:0]
	return len(ids)
}

func (m *Memo) get(k memoKey) (int32, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.cur[k]
	if !ok {
		if c, ok = m.old[k]; ok { // still in use: keep it through the next turnover
			m.cur[k] = c
		}
	}
	if ok {
		m.hits++
	}
	return c, ok
}

func (m *Memo) put(k memoKey, c int32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.cur) >= m.limit {
		m.old, m.cur = m.cur, make(map[memoKey]int32, m.limit)
	}
	m.cur[k] = c
}
