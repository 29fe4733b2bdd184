package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// bpe is the crate's BPE model: a vocabulary, ranked merges over pairs of ids, and the
// SentencePiece-style extras (byte_fallback, unk_token with fuse_unk, ignore_merges).
type bpe struct {
	vocab  map[string]int32 // token (as written in tokenizer.json) -> id
	pieces []string         // id -> token
	known  []bool           // known[id]: id is in the vocab (a token may be "")
	// merges maps the pair (a<<32 | b) to (rank<<32 | merged id).
	merges map[uint64]uint64

	// rawVocab and byteIDs serve byte-level pipelines, whose words stay raw bytes: rawVocab is
	// keyed by the bytes a token stands for, byteIDs[b] is the id of byte b's rune (-1: none).
	rawVocab map[string]int32
	byteIDs  [256]int32

	unk          int32 // -1 when there is no unk_token
	fuseUnk      bool
	byteFallback bool
	fallbackIDs  [256]int32 // ids of "<0xNN>", -1 when absent
	ignoreMerges bool
	prefix       string // continuing_subword_prefix
	suffix       string // end_of_word_suffix

	// chunkable: long words may be cut before each "▁" that follows a rune outside
	// noCutAfter, because no vocabulary token spans such a place (so no merge can either);
	// the pieces then hit the word cache. SentencePiece-style models without a pre-tokenizer
	// (Llama-2, Mistral, Gemma) otherwise merge a whole prompt as one word.
	chunkable  bool
	noCutAfter map[rune]bool

	cache wordCache
}

// metaspace is SentencePiece's word-boundary rune.
const metaspace = "\u2581"

// bpeJSON is the model section of tokenizer.json.
type bpeJSON struct {
	Type                    string          `json:"type"`
	Dropout                 *float64        `json:"dropout"`
	UnkToken                *string         `json:"unk_token"`
	ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string         `json:"end_of_word_suffix"`
	FuseUnk                 bool            `json:"fuse_unk"`
	ByteFallback            bool            `json:"byte_fallback"`
	IgnoreMerges            bool            `json:"ignore_merges"`
	Vocab                   json.RawMessage `json:"vocab"`
	Merges                  json.RawMessage `json:"merges"`
}

// mergeJSON is one merge.
type mergeJSON struct{ a, b string }

// pairsFormat tells whether merges are written as [a, b] lists (the first element is a list).
func pairsFormat(raw json.RawMessage) bool {
	seenOpen := false
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
		case '[':
			if seenOpen {
				return true
			}
			seenOpen = true
		default:
			return false
		}
	}
	return false
}

// parseMerges reads merges written either as "a b" strings or as ["a", "b"] pairs.
func parseMerges(raw json.RawMessage) ([]mergeJSON, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if flat, err := scanStrings(raw, pairsFormat(raw)); err == nil {
		if pairsFormat(raw) {
			out := make([]mergeJSON, len(flat)/2)
			for i := range out {
				out[i] = mergeJSON{flat[2*i], flat[2*i+1]}
			}
			return out, nil
		}
		out := make([]mergeJSON, len(flat))
		for i, s := range flat {
			a, b, ok := strings.Cut(s, " ")
			if !ok {
				return nil, fmt.Errorf("merges[%d]: %q has no space between its two parts", i, s)
			}
			out[i] = mergeJSON{a, b}
		}
		return out, nil
	}
	if !pairsFormat(raw) {
		var strs []string
		if err := json.Unmarshal(raw, &strs); err == nil {
			out := make([]mergeJSON, len(strs))
			for i, s := range strs {
				a, b, ok := strings.Cut(s, " ")
				if !ok {
					return nil, fmt.Errorf("merges[%d]: %q has no space between its two parts", i, s)
				}
				out[i] = mergeJSON{a, b}
			}
			return out, nil
		}
	}
	var pairs [][]string
	if err := json.Unmarshal(raw, &pairs); err != nil {
		return nil, fmt.Errorf("merges: want a list of \"a b\" strings or [a, b] pairs: %w", err)
	}
	out := make([]mergeJSON, len(pairs))
	for i, p := range pairs {
		if len(p) != 2 {
			return nil, fmt.Errorf("merges[%d]: has %d parts, want 2", i, len(p))
		}
		out[i] = mergeJSON{p[0], p[1]}
	}
	return out, nil
}

func newBPE(j *bpeJSON) (*bpe, error) {
	if j.Dropout != nil && *j.Dropout > 0 {
		return nil, fmt.Errorf("dropout %v is random; only deterministic BPE is supported", *j.Dropout)
	}
	merges, err := parseMerges(j.Merges)
	if err != nil {
		return nil, err
	}
	vocab, err := decodeVocab(j.Vocab)
	if err != nil {
		return nil, fmt.Errorf("vocab: %w", err)
	}
	m := &bpe{
		vocab:        vocab,
		merges:       make(map[uint64]uint64, len(merges)),
		unk:          -1,
		fuseUnk:      j.FuseUnk,
		byteFallback: j.ByteFallback,
		ignoreMerges: j.IgnoreMerges,
	}
	maxID := int32(-1)
	for tok, id := range m.vocab {
		if id < 0 || id >= 1<<28 {
			return nil, fmt.Errorf("vocab: token %q has id %d outside [0, 2^28)", tok, id)
		}
		maxID = max(maxID, id)
	}
	m.pieces = make([]string, maxID+1)
	m.known = make([]bool, maxID+1)
	for tok, id := range m.vocab {
		m.pieces[id], m.known[id] = tok, true
	}
	if j.ContinuingSubwordPrefix != nil {
		m.prefix = *j.ContinuingSubwordPrefix
	}
	if j.EndOfWordSuffix != nil {
		m.suffix = *j.EndOfWordSuffix
	}
	if j.UnkToken != nil {
		id, ok := m.vocab[*j.UnkToken]
		if !ok {
			return nil, fmt.Errorf("unk_token %q is not in the vocab", *j.UnkToken)
		}
		m.unk = id
	}
	for b := 0; b < 256; b++ {
		m.fallbackIDs[b] = -1
		if id, ok := m.vocab[fmt.Sprintf("<0x%02X>", b)]; ok {
			m.fallbackIDs[b] = id
		}
	}
	var joined []byte
	for i, mg := range merges {
		a, ok := m.vocab[mg.a]
		if !ok {
			return nil, fmt.Errorf("merges[%d]: %q is not in the vocab", i, mg.a)
		}
		b, ok := m.vocab[mg.b]
		if !ok {
			return nil, fmt.Errorf("merges[%d]: %q is not in the vocab", i, mg.b)
		}
		if len(mg.b) < len(m.prefix) {
			return nil, fmt.Errorf("merges[%d]: %q is shorter than continuing_subword_prefix", i, mg.b)
		}
		joined = append(append(joined[:0], mg.a...), mg.b[len(m.prefix):]...)
		n, ok := m.vocab[string(joined)]
		if !ok {
			return nil, fmt.Errorf("merges[%d]: merged token %q is not in the vocab", i, joined)
		}
		m.merges[uint64(a)<<32|uint64(b)] = uint64(i)<<32 | uint64(n)
	}
	m.cache.init()
	m.initChunking()
	return m, nil
}

// initChunking finds whether words may be cut before "▁" (see bpe.chunkable).
func (m *bpe) initChunking() {
	if _, ok := m.vocab[metaspace]; !ok || m.ignoreMerges || m.prefix != "" || m.suffix != "" {
		return
	}
	m.noCutAfter = map[rune]bool{}
	for tok := range m.vocab {
		prev := rune(-1)
		for _, r := range tok {
			if r == '\u2581' && prev >= 0 && prev != '\u2581' {
				m.noCutAfter[prev] = true
			}
			prev = r
		}
	}
	m.chunkable = true
}

// chunkMin is the word length from which cutting into pieces pays off.
const chunkMin = 64

// piece returns the token of id.
func (m *bpe) piece(id int) (string, bool) {
	if id < 0 || id >= len(m.pieces) || !m.known[id] {
		return "", false
	}
	return m.pieces[id], true
}

// enableByteLevel prepares the raw-byte lookups used when the pre-tokenizer is ByteLevel.
func (m *bpe) enableByteLevel() {
	m.rawVocab = make(map[string]int32, len(m.vocab))
	for tok, id := range m.vocab {
		if raw, ok := byteLevelDecode(tok); ok {
			m.rawVocab[raw] = id
		}
	}
	for b := 0; b < 256; b++ {
		m.byteIDs[b] = -1
		if id, ok := m.vocab[string(byteToRune[b])]; ok && m.prefix == "" && m.suffix == "" {
			m.byteIDs[b] = id
		}
	}
}

// bpeScratch holds the buffers one tokenize call reuses.
type bpeScratch struct {
	syms []int32
	heap []uint64
	prev []int32
	next []int32
	str  []byte
}

// appendWord appends the ids of one pre-tokenized word. raw says the word is raw bytes of a
// byte-level pipeline (the vocabulary's runes stand for bytes).
func (m *bpe) appendWord(dst []int, word string, raw bool, sc *bpeScratch) []int {
	if word == "" {
		return dst
	}
	if m.ignoreMerges {
		var id int32
		var ok bool
		if raw {
			id, ok = m.rawVocab[word]
		} else {
			id, ok = m.vocab[word]
		}
		if ok {
			return append(dst, int(id))
		}
	}
	if !raw && m.chunkable && len(word) >= chunkMin {
		return m.appendChunks(dst, word, sc)
	}
	return m.appendPiece(dst, word, raw, sc)
}

// appendChunks cuts a long word before each "▁" that no token spans and encodes the pieces.
func (m *bpe) appendChunks(dst []int, word string, sc *bpeScratch) []int {
	start := 0
	prev := rune(-1)
	for i, r := range word {
		if i > start && m.cutBefore(prev, r) {
			dst = m.appendPiece(dst, word[start:i], false, sc)
			start = i
		}
		prev = r
	}
	return m.appendPiece(dst, word[start:], false, sc)
}

// cutBefore says a long word may be cut between prev and r: r is a "▁" that no token spans
// from before it.
func (m *bpe) cutBefore(prev, r rune) bool {
	return r == '\u2581' && prev != '\u2581' && !m.noCutAfter[prev]
}

// cutFrom is the first position at or after from where appendChunks cuts s, or len(s) when
// none is.
func (m *bpe) cutFrom(s string, from int) int {
	if from <= 0 {
		from = 1 // the word's start is no cut
	}
	for from < len(s) && !utf8.RuneStart(s[from]) {
		from++
	}
	if from >= len(s) {
		return len(s)
	}
	prev, _ := utf8.DecodeLastRuneInString(s[:from])
	for i, r := range s[from:] {
		if m.cutBefore(prev, r) {
			return from + i
		}
		prev = r
	}
	return len(s)
}

// chunks says appendWord cuts word into pieces (appendChunks) rather than encoding it whole.
func (m *bpe) chunks(word string, raw bool) bool {
	if m.ignoreMerges {
		var ok bool
		if raw {
			_, ok = m.rawVocab[word]
		} else {
			_, ok = m.vocab[word]
		}
		if ok {
			return false
		}
	}
	return !raw && m.chunkable && len(word) >= chunkMin
}

// appendPiece encodes one word (or piece of one) through the cache and the merges.
func (m *bpe) appendPiece(dst []int, word string, raw bool, sc *bpeScratch) []int {
	if ids, ok := m.cache.get(word); ok {
		for _, id := range ids {
			dst = append(dst, int(id))
		}
		return dst
	}
	syms := m.initial(sc.syms[:0], word, raw, sc)
	syms = m.mergeAll(syms, sc)
	sc.syms = syms
	m.cache.put(word, syms)
	for _, id := range syms {
		dst = append(dst, int(id))
	}
	return dst
}

// initial splits a word into its starting symbols (one per rune, or per byte when raw), with
// byte fallback and unknown-token handling exactly as the crate's merge_word.
func (m *bpe) initial(syms []int32, word string, raw bool, sc *bpeScratch) []int32 {
	unk, unkPending := int32(-1), false
	flush := func() {
		if unkPending {
			syms = append(syms, unk)
			unkPending = false
		}
	}
	missing := func(s string) {
		if m.byteFallback {
			all := true
			for i := 0; i < len(s); i++ {
				if m.fallbackIDs[s[i]] < 0 {
					all = false
					break
				}
			}
			if all {
				for i := 0; i < len(s); i++ {
					syms = append(syms, m.fallbackIDs[s[i]])
				}
				return
			}
		}
		if m.unk >= 0 {
			if unkPending && !m.fuseUnk {
				syms = append(syms, unk)
			}
			unk, unkPending = m.unk, true
		}
	}
	if raw && m.prefix == "" && m.suffix == "" {
		for i := 0; i < len(word); i++ {
			if id := m.byteIDs[word[i]]; id >= 0 {
				flush()
				syms = append(syms, id)
			} else {
				missing(string(byteToRune[word[i]]))
			}
		}
		flush()
		return syms
	}
	for i := 0; i < len(word); {
		w := 1
		if word[i] >= utf8.RuneSelf {
			_, w = utf8.DecodeRuneInString(word[i:])
		}
		if raw {
			sc.str = utf8.AppendRune(sc.str[:0], byteToRune[word[i]])
			w = 1
		} else {
			sc.str = append(sc.str[:0], word[i:i+w]...)
		}
		if i > 0 {
			sc.str = append([]byte(m.prefix), sc.str...)
		}
		if i+w == len(word) {
			sc.str = append(sc.str, m.suffix...)
		}
		if id, ok := m.vocab[string(sc.str)]; ok {
			flush()
			syms = append(syms, id)
		} else {
			missing(string(sc.str))
		}
		i += w
	}
	flush()
	return syms
}

// mergeAll applies merges lowest rank first, leftmost first among equal ranks, as the crate's
// Word::merge_all does. Short words use a linear scan; long ones a heap over a linked list.
func (m *bpe) mergeAll(syms []int32, sc *bpeScratch) []int32 {
	if len(syms) < 2 {
		return syms
	}
	if len(syms) <= 48 {
		for {
			best, bestRank, bestID := -1, uint64(1<<63), int32(0)
			for i := 0; i+1 < len(syms); i++ {
				if v, ok := m.merges[uint64(syms[i])<<32|uint64(uint32(syms[i+1]))]; ok && v>>32 < bestRank {
					best, bestRank, bestID = i, v>>32, int32(uint32(v))
				}
			}
			if best < 0 {
				return syms
			}
			syms[best] = bestID
			syms = append(syms[:best+1], syms[best+2:]...)
		}
	}
	return m.mergeHeap(syms, sc)
}

func (m *bpe) mergeHeap(syms []int32, sc *bpeScratch) []int32 {
	n := len(syms)
	prev, next := sc.prev[:0], sc.next[:0]
	for i := 0; i < n; i++ {
		prev = append(prev, int32(i-1))
		next = append(next, int32(i+1))
	}
	alive := syms // symbol i is dead when syms[i] < 0
	h := minHeap(sc.heap[:0])
	pair := func(i int) (uint64, bool) {
		j := next[i]
		if int(j) >= n {
			return 0, false
		}
		v, ok := m.merges[uint64(alive[i])<<32|uint64(uint32(alive[j]))]
		return v, ok
	}
	for i := 0; i+1 < n; i++ {
		if v, ok := pair(i); ok {
			h.push(v>>32<<32 | uint64(i))
		}
	}
	for len(h) > 0 {
		top := h.pop()
		i := int(uint32(top))
		rank := top >> 32
		if alive[i] < 0 {
			continue
		}
		v, ok := pair(i)
		if !ok || v>>32 != rank {
			continue // stale: the pair at i changed since it was queued
		}
		j := int(next[i])
		alive[i] = int32(uint32(v))
		alive[j] = -1
		next[i] = next[j]
		if int(next[j]) < n {
			prev[next[j]] = int32(i)
		}
		if p := prev[i]; p >= 0 {
			if v, ok := pair(int(p)); ok {
				h.push(v>>32<<32 | uint64(p))
			}
		}
		if v, ok := pair(i); ok {
			h.push(v>>32<<32 | uint64(i))
		}
	}
	sc.heap, sc.prev, sc.next = h, prev, next
	out := syms[:0]
	for _, id := range alive {
		if id >= 0 {
			out = append(out, id)
		}
	}
	return out
}

// minHeap is a binary heap of rank<<32|position keys: the lowest rank, then leftmost, on top.
type minHeap []uint64

func (h *minHeap) push(v uint64) {
	*h = append(*h, v)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if a[p] <= a[i] {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *minHeap) pop() uint64 {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a = a[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(a) {
			break
		}
		c := l
		if r := l + 1; r < len(a) && a[r] < a[l] {
			c = r
		}
		if a[i] <= a[c] {
			break
		}
		a[i], a[c] = a[c], a[i]
		i = c
	}
	*h = a
	return top
}

// wordCache remembers the ids of words already merged. Each shard publishes an immutable map
// that reads load with one atomic load and no write: under an RWMutex every read's RLock and
// RUnlock were atomic adds on the shard's reader count, and with the builder's workers on the
// same shards those adds bounced cache lines between the cores (17.5% of synthesis's CPU on
// the default shapes, pprof; sync.Map's hash trie was slower still). Words merged since the
// last publish wait in a small map under a mutex, taken only on a miss, which a merge follows
// anyway; every publishEvery of them a new map is published, copied from the old one, or
// started afresh when the old one is full (recency is not tracked).
type wordCache struct {
	shards [64]cacheShard
}

type cacheShard struct {
	read  atomic.Pointer[map[string][]int32] // never written once published
	mu    sync.Mutex
	fresh map[string][]int32 // merged since the last publish
}

const (
	cacheShardCap = 4096
	publishEvery  = 64
)

// maxCachedWord keeps long words (whole SentencePiece lines) out of the cache.
const maxCachedWord = 256

func (c *wordCache) init() {
	for i := range c.shards {
		c.shards[i].fresh = make(map[string][]int32)
	}
}

func (c *wordCache) shard(w string) *cacheShard {
	h := uint32(len(w))*31 + uint32(w[0])*7 + uint32(w[len(w)-1])
	if len(w) > 2 {
		h = h*131 + uint32(w[len(w)/2])
	}
	return &c.shards[h%uint32(len(c.shards))]
}

func (c *wordCache) get(w string) ([]int32, bool) {
	if len(w) > maxCachedWord {
		return nil, false
	}
	s := c.shard(w)
	if m := s.read.Load(); m != nil {
		if ids, ok := (*m)[w]; ok {
			return ids, true
		}
	}
	s.mu.Lock()
	ids, ok := s.fresh[w]
	s.mu.Unlock()
	return ids, ok
}

func (c *wordCache) put(w string, ids []int32) {
	if len(w) > maxCachedWord {
		return
	}
	s := c.shard(w)
	cp := append([]int32(nil), ids...)
	key := strings.Clone(w)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fresh[key] = cp
	if len(s.fresh) < publishEvery {
		return
	}
	var old map[string][]int32
	if m := s.read.Load(); m != nil && len(*m)+len(s.fresh) <= cacheShardCap {
		old = *m
	}
	next := make(map[string][]int32, len(old)+len(s.fresh))
	for k, v := range old {
		next[k] = v
	}
	for k, v := range s.fresh {
		next[k] = v
	}
	s.read.Store(&next)
	clear(s.fresh)
}
