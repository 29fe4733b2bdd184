package sim

import "container/list"

// block is one KV block. A hashed block holds a known prompt prefix and can be shared; an
// anonymous one holds a sequence's own tokens.
type block struct {
	hash   uint64
	hashed bool
	refs   int
	// elem is the block's place in the LRU list while refs == 0.
	elem *list.Element
}

// kvCache tracks KV blocks: blocks of running sequences are pinned; hashed blocks whose last
// user finished stay cached in an LRU list until a new allocation needs their space.
type kvCache struct {
	capacity int
	pinned   int
	byHash   map[uint64]*block
	// lru holds unreferenced hashed blocks, least recently freed at the front.
	lru *list.List
}

func newKVCache(capacity int) *kvCache {
	return &kvCache{capacity: capacity, byHash: make(map[uint64]*block), lru: list.New()}
}

// lookup returns the longest cached prefix of hashes, in blocks, and how many of those blocks
// sit unreferenced in the LRU list (pinning them takes space).
func (c *kvCache) lookup(hashes []uint64) (hit, inLRU int) {
	for _, h := range hashes {
		b, ok := c.byHash[h]
		if !ok {
			break
		}
		hit++
		if b.refs == 0 {
			inLRU++
		}
	}
	return hit, inLRU
}

// canAllocate reports whether pinning hit cached blocks (inLRU of them unreferenced) and
// allocating fresh more blocks fits: free space counts empty and evictable blocks.
func (c *kvCache) canAllocate(inLRU, fresh int) bool {
	return c.pinned+inLRU+fresh <= c.capacity
}

// pin takes a reference on the first hit blocks of hashes.
func (c *kvCache) pin(hashes []uint64) []*block {
	out := make([]*block, len(hashes))
	for i, h := range hashes {
		b := c.byHash[h]
		if b.refs == 0 {
			c.lru.Remove(b.elem)
			b.elem = nil
			c.pinned++
		}
		b.refs++
		out[i] = b
	}
	return out
}

// alloc returns a fresh anonymous pinned block, evicting the least recently freed cached block
// when no empty one is left. Callers check canAllocate first.
func (c *kvCache) alloc() *block {
	if c.pinned+c.lru.Len() >= c.capacity {
		if front := c.lru.Front(); front != nil {
			old := c.lru.Remove(front).(*block)
			delete(c.byHash, old.hash)
		}
	}
	c.pinned++
	return &block{refs: 1}
}

// register makes a computed anonymous block findable by its prefix hash. If another sequence
// registered the same prefix first, the block stays anonymous (a duplicate, freed at release).
func (c *kvCache) register(b *block, h uint64) {
	if b.hashed {
		return
	}
	if _, ok := c.byHash[h]; ok {
		return
	}
	b.hash, b.hashed = h, true
	c.byHash[h] = b
}

// release drops a sequence's references. Blocks are freed tail first, so a prompt's later
// blocks are evicted before its earlier (more shared) ones, as in vLLM.
func (c *kvCache) release(blocks []*block) {
	for i := len(blocks) - 1; i >= 0; i-- {
		b := blocks[i]
		b.refs--
		if b.refs > 0 {
			continue
		}
		c.pinned--
		if b.hashed {
			b.elem = c.lru.PushBack(b)
		}
	}
}

// usage is the fraction of blocks pinned by running sequences (cached free blocks count as
// free, as in vLLM's kv_cache_usage_perc).
func (c *kvCache) usage() float64 {
	return float64(c.pinned) / float64(c.capacity)
}
