package synth

// Blocks: a trace's block hash becomes block_size pool words derived from (seed, hash) only, so
// equal hashes give equal blocks on every machine. The one exception is the block's first word:
// two different blocks (or a block and a request's unique tail) that follow the same parent must
// differ right at their first token, or the prompts would share one token more than the trace
// says. The first word is therefore drawn from (seed, hash, salt), bumping the salt past words
// already used by a sibling. That makes a block's first word depend on which siblings came
// before it in the trace, so the same trace file and seed always give the same prompts, but a
// different window of it (--from, --limit) may pick different first words for some blocks.

// maxSalt bounds the search for a free first word; past it (a parent with more children than
// the pool has words) a sibling clash is accepted and counted.
const maxSalt = 4096

// parent identifies what precedes a block or tail: the previous block's hash, or the start.
type parent struct {
	hash uint64
	root bool
}

type blockSet struct {
	seed     uint64
	poolSize int
	first    map[uint64]int32 // block hash -> its first word
	children map[parent]map[int32]struct{}
	clashes  int
}

func newBlockSet(seed uint64, poolSize int) *blockSet {
	return &blockSet{
		seed:     seed,
		poolSize: poolSize,
		first:    map[uint64]int32{},
		children: map[parent]map[int32]struct{}{},
	}
}

// firstWord returns (choosing it on first sight) the first word of the block for hash h.
func (s *blockSet) firstWord(p parent, h uint64) int32 {
	if w, ok := s.first[h]; ok {
		return w
	}
	w := s.freeWord(p, func(salt uint64) uint64 { return key(s.seed, domainFirst, h, salt) })
	s.first[h] = w
	return w
}

// tailFirstWord chooses the first word of request index's tail after p, unlike its siblings.
func (s *blockSet) tailFirstWord(p parent, index int) int32 {
	return s.freeWord(p, func(salt uint64) uint64 { return key(s.seed, domainTail, uint64(index), 1<<32+salt) })
}

// freeWord draws words from keys(0), keys(1), ... until one is not yet a child of p, and
// registers it.
func (s *blockSet) freeWord(p parent, keys func(salt uint64) uint64) int32 {
	used := s.children[p]
	if used == nil {
		used = map[int32]struct{}{}
		s.children[p] = used
	}
	var w int32
	for salt := uint64(0); ; salt++ {
		r := newRNG(keys(salt))
		w = int32(r.below(s.poolSize))
		if _, taken := used[w]; !taken {
			break
		}
		if salt == maxSalt {
			s.clashes++
			break
		}
	}
	used[w] = struct{}{}
	return w
}

// appendBlock appends the first n words of the block for hash h (n <= block size) to dst.
func (s *blockSet) appendBlock(dst []int32, p parent, h uint64, n int) []int32 {
	if n <= 0 {
		return dst
	}
	dst = append(dst, s.firstWord(p, h))
	r := newRNG(key(s.seed, domainBlock, h))
	for range n - 1 {
		dst = append(dst, int32(r.below(s.poolSize)))
	}
	return dst
}

// appendWords appends n words of the stream keyed by (domain, index) to dst.
func appendWords(dst []int32, seed, domain uint64, index int, n, poolSize int) []int32 {
	r := newRNG(key(seed, domain, uint64(index)))
	for range n {
		dst = append(dst, int32(r.below(poolSize)))
	}
	return dst
}
