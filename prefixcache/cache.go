package prefixcache

// Result counts the blocks a cache saw and how many it already held.
type Result struct {
	Hits   int64 `json:"hits"`
	Blocks int64 `json:"blocks"`
}

// Rate is Hits/Blocks, 0 for no blocks.
func (r Result) Rate() float64 {
	if r.Blocks == 0 {
		return 0
	}
	return float64(r.Hits) / float64(r.Blocks)
}

// Cache counts block hits request by request. A request's block hits when the cache holds it
// and every block before it in the request hit too (a prefix cache can only reuse a prefix).
// With infinite capacity and prefix-chained hashes (a hash implies its whole prefix) this is
// exactly "the hash was seen earlier in the trace".
type Cache struct {
	capacity int // 0 = infinite
	seen     map[uint64]int32
	lru      lruList
	res      Result
}

// New makes a cache holding capacityBlocks blocks, evicting the least recently used;
// capacityBlocks <= 0 means infinite.
func New(capacityBlocks int) *Cache {
	c := &Cache{capacity: max(capacityBlocks, 0), seen: map[uint64]int32{}}
	return c
}

// Add runs one request's block hashes through the cache and returns its hit blocks.
func (c *Cache) Add(hashes []uint64) int {
	hits := 0
	prefix := true
	for _, h := range hashes {
		_, ok := c.seen[h]
		if ok && prefix {
			hits++
		} else {
			prefix = false
		}
	}
	c.res.Hits += int64(hits)
	c.res.Blocks += int64(len(hashes))
	if c.capacity == 0 {
		for _, h := range hashes {
			c.seen[h] = 0
		}
		return hits
	}
	// Touch the blocks last to first, so the request's first block is the most recently used:
	// eviction then takes a prefix's tail before its head, as paged-attention engines do.
	for i := len(hashes) - 1; i >= 0; i-- {
		h := hashes[i]
		if idx, ok := c.seen[h]; ok {
			c.lru.moveToFront(idx)
			continue
		}
		if c.lru.len == c.capacity {
			victim := c.lru.back()
			delete(c.seen, c.lru.nodes[victim].hash)
			c.lru.remove(victim)
			c.lru.free = append(c.lru.free, victim)
		}
		c.seen[h] = c.lru.pushFront(h)
	}
	return hits
}

// Result is the running total.
func (c *Cache) Result() Result { return c.res }

// HitRate runs every request's hashes through a cache of capacityBlocks (<= 0: infinite).
func HitRate(requests [][]uint64, capacityBlocks int) Result {
	c := New(capacityBlocks)
	for _, h := range requests {
		c.Add(h)
	}
	return c.Result()
}

// lruList is a doubly linked list over a slice, so a big cache costs no pointer per block.
type lruList struct {
	nodes      []lruNode
	head, tail int32 // -1 when empty
	len        int
	free       []int32
	init       bool
}

type lruNode struct {
	hash       uint64
	prev, next int32
}

func (l *lruList) pushFront(h uint64) int32 {
	if !l.init {
		l.head, l.tail, l.init = -1, -1, true
	}
	var i int32
	if n := len(l.free); n > 0 {
		i = l.free[n-1]
		l.free = l.free[:n-1]
	} else {
		l.nodes = append(l.nodes, lruNode{})
		i = int32(len(l.nodes) - 1)
	}
	l.nodes[i] = lruNode{hash: h, prev: -1, next: l.head}
	if l.head >= 0 {
		l.nodes[l.head].prev = i
	}
	l.head = i
	if l.tail < 0 {
		l.tail = i
	}
	l.len++
	return i
}

func (l *lruList) remove(i int32) {
	n := l.nodes[i]
	if n.prev >= 0 {
		l.nodes[n.prev].next = n.next
	} else {
		l.head = n.next
	}
	if n.next >= 0 {
		l.nodes[n.next].prev = n.prev
	} else {
		l.tail = n.prev
	}
	l.len--
}

func (l *lruList) moveToFront(i int32) {
	if l.head == i {
		return
	}
	h := l.nodes[i].hash
	l.remove(i)
	l.free = append(l.free, i)
	l.pushFront(h) // reuses slot i, which the map already points at
}

func (l *lruList) back() int32 { return l.tail }
