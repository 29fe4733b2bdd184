package gen

// segment is a run of prompt tokens cut from one content (a document, a message): the token at
// offset o of the content id names is the same in every segment, whatever its cut. A shared
// document cut at two lengths is two segments with one id, and the two prompts share its
// common prefix; a window that slides (from > 0) shares nothing with the start.
type segment struct {
	id   uint64
	from int // offset of the segment's first token in the content id names
	n    int
}

// Segment kinds, in bits 48-55 of an id (the shape's tag is in 56-63 and the index or counter
// below), so a pool item never has the id of a unique message.
const (
	kindSystem = iota + 1
	kindRepo
	kindFile
	kindTools
	kindDoc
	kindMessage
	kindAnswer
	kindToolResult
)

func segmentID(tag, kind, n uint64) uint64 { return tag<<56 | kind<<48 | n&(1<<48-1) }

// blockIDs numbers prompt blocks the way Mooncake's hash_ids do: a block's id is a hash of the
// previous block's and of the block's own content (the pieces of segments it covers), so equal
// content after an equal prefix gets an equal id and an id always has the same predecessor.
// The raw 64-bit hashes are then renumbered densely in order of first appearance (0, 1, 2...),
// which keeps the file small and says nothing of how they were made. Like Mooncake, the partial
// last block is hashed too: len(ids) == ceil(prompt tokens / block size).
type blockIDs struct {
	size  int
	dense map[uint64]uint64
}

func newBlockIDs(size int) *blockIDs { return &blockIDs{size: size, dense: map[uint64]uint64{}} }

// ids appends the ids of a prompt's blocks to dst. Requests must come in trace order, so
// that the numbering is the order of first appearance in the file.
func (b *blockIDs) ids(segs []segment, dst []uint64) []uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	filled := 0
	for _, s := range segs {
		for off := 0; off < s.n; {
			take := min(s.n-off, b.size-filled)
			h = mix(mix(mix(h^s.id)^uint64(s.from+off)) ^ uint64(s.from+off+take))
			off += take
			filled += take
			if filled == b.size {
				dst = append(dst, b.number(h))
				filled = 0
			}
		}
	}
	if filled > 0 {
		dst = append(dst, b.number(mix(h^uint64(filled))))
	}
	return dst
}

func (b *blockIDs) number(h uint64) uint64 {
	id, ok := b.dense[h]
	if !ok {
		id = uint64(len(b.dense))
		b.dense[h] = id
	}
	return id
}

// mix is SplitMix64's finalizer: every input bit flips about half the output bits, so
// chained pieces do not collide in practice (2^-64 per pair).
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
