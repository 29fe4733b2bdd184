package prefixcache

// recency is the LRU stack of every block ever touched, most recent on top, kept as last-touch
// times: a block's depth (1 = touched last) is the number of blocks whose last touch is at or
// after its own. Each block owns one slot of a time window, marked in a Fenwick tree, so depth
// and touch are O(log window). Times only grow; when they reach the window's end the live
// slots are packed to the front in order (compact) and the window is resized to twice the
// blocks, so memory is the blocks' table plus a window of at most about twice their number,
// whatever the trace's length, and packing costs O(1) per touch amortized.
type recency struct {
	index map[uint64]int32 // hash -> block number, in order of first touch
	time  []uint32         // block number -> its slot in the window
	tree  fenwick          // one mark per block, at its slot
	now   int              // the next touch's slot
	// minWindow is the smallest window; a variable so tests can make packing frequent.
	minWindow int
}

const defaultMinWindow = 1 << 16

// maxDistinct bounds the blocks a recency holds: block numbers are int32, and a window of
// twice the blocks must fit in uint32 slots. A variable so a test can reach it.
var maxDistinct = 1<<31 - 1

func newRecency(minWindow int) *recency {
	r := &recency{index: map[uint64]int32{}, minWindow: max(minWindow, 1)}
	r.tree.reset(r.minWindow, 0)
	return r
}

// blocks is the number of distinct blocks touched so far.
func (r *recency) blocks() int { return len(r.time) }

// lookup is h's block number, -1 when h was never touched.
func (r *recency) lookup(h uint64) int32 {
	if b, ok := r.index[h]; ok {
		return b
	}
	return -1
}

// slot is block b's last-touch slot: a smaller slot is an older touch.
func (r *recency) slot(b int32) int { return int(r.time[b]) }

// depthAt is the depth of the block at slot s: it and every block touched after it.
func (r *recency) depthAt(s int) int { return r.blocks() - r.tree.before(s) }

// touch makes block b (or, for b < 0, hash h, adding it when new) the most recently used.
func (r *recency) touch(b int32, h uint64) {
	if r.now == r.tree.size() {
		r.compact()
	}
	if b < 0 {
		var ok bool
		if b, ok = r.index[h]; !ok {
			b = int32(len(r.time))
			r.index[h] = b
			r.time = append(r.time, 0)
			r.stamp(b)
			return
		}
	}
	r.tree.unmark(r.slot(b))
	r.stamp(b)
}

// stamp gives block b the next slot.
func (r *recency) stamp(b int32) {
	r.time[b] = uint32(r.now)
	r.tree.mark(r.now)
	r.now++
}

// compact packs the blocks' slots to 0..blocks-1, keeping their order, and resizes the window
// to twice the blocks (at least minWindow): at least as many touches as there are blocks
// then pass before the next packing, which pays for this one's O(window) work.
func (r *recency) compact() {
	r.tree.ranks()
	for b, s := range r.time {
		r.time[b] = uint32(r.tree.rank(int(s)))
	}
	n := len(r.time)
	r.tree.reset(max(2*n, r.minWindow), n)
	r.now = n
}
