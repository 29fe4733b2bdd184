package tokenizer

import "sync"

// Cached is an HF tokenizer that remembers the ids of long text segments between added tokens.
// Request logs send the same text again and again: every chat turn repeats the conversation so
// far, and many conversations share a system prompt. A chat template wraps each message in
// added tokens (<|im_start|>, <|im_end|>, ...), and the crate encodes the text between two
// added tokens on its own (normalizer, pre-tokenizer and model never see across one), so a
// segment's ids depend only on its text and on whether it starts the input. Caching them is
// exact; it only skips work. Where that is exact too, a segment the cache misses is looked up
// and stored in line chunks as well (linechunks.go), so text met before inside new text is not
// encoded again. Safe for concurrent use.
type Cached struct {
	*HF
	cache *segmentCache
}

// minCachedSegment is the shortest segment worth a map lookup: shorter ones encode in about the
// time a lookup and the copy of its ids take.
const minCachedSegment = 64

// WithSegmentCache returns t with a segment cache holding up to about maxBytes of text and ids.
func (t *HF) WithSegmentCache(maxBytes int) *Cached {
	return &Cached{HF: t, cache: &segmentCache{limit: max(maxBytes, 1<<16), cur: map[segmentKey][]int32{}}}
}

// Encode implements Tokenizer.
func (c *Cached) Encode(text string, addSpecial bool) []int {
	return c.encodeIDs(text, addSpecial, c.cache)
}

// Count implements Tokenizer.
func (c *Cached) Count(text string) int { return c.count(text, c.cache) }

type segmentKey struct {
	text  string
	first bool
}

// segmentCache is a two-generation map: when the current generation reaches half the limit it
// becomes the old one and the previous old one is dropped; a hit in the old generation moves
// the entry to the current one. That keeps what is in use at the cost of an LRU's bookkeeping.
type segmentCache struct {
	mu       sync.Mutex
	limit    int
	cur, old map[segmentKey][]int32
	size     int   // bytes held by cur
	hits     int64 // lookups answered, for tests and profiles
}

func (c *segmentCache) get(k segmentKey) ([]int32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ids, ok := c.cur[k]; ok {
		c.hits++
		return ids, true
	}
	ids, ok := c.old[k]
	if ok {
		c.hits++
		delete(c.old, k)
		c.putLocked(k, ids)
	}
	return ids, ok
}

// put stores ids (copied) for a segment whose text is copied too: the key must not keep the
// caller's whole input alive.
func (c *segmentCache) put(text string, first bool, ids []int) {
	ids32 := make([]int32, len(ids))
	for i, id := range ids {
		ids32[i] = int32(id)
	}
	k := segmentKey{text: string([]byte(text)), first: first}
	c.mu.Lock()
	c.putLocked(k, ids32)
	c.mu.Unlock()
}

func (c *segmentCache) putLocked(k segmentKey, ids []int32) {
	if _, ok := c.cur[k]; ok {
		return
	}
	n := len(k.text) + 4*len(ids) + 64
	if c.size+n > c.limit/2 {
		c.old, c.cur, c.size = c.cur, make(map[segmentKey][]int32, len(c.cur)), 0
	}
	c.cur[k] = ids
	c.size += n
}
