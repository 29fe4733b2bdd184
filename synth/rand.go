package synth

import "math/bits"

// Everything random in synth derives from keyed 64-bit mixes of (seed, domain, ids) so prompts
// are identical on every machine and run: no math/rand global state, no map iteration order.

// Domains keep the streams of different purposes apart even for equal numeric keys.
const (
	domainBlock  uint64 = 0x626c6f636b000001 // block body tokens, keyed by hash
	domainFirst  uint64 = 0x6669727374000002 // block first token, keyed by hash and salt
	domainTail   uint64 = 0x7461696c00000003 // per-request tail, keyed by request index
	domainAnswer uint64 = 0x616e737700000004 // synthetic assistant answer, keyed by request index
	domainRepair uint64 = 0x7265706169000005 // replacement words when a round trip needs repair
	domainInput  uint64 = 0x696e707574000006 // an embeddings batch's input, keyed by request and input
)

// splitmix64 is Steele et al.'s finalizer: a bijective, well-mixed 64-bit hash.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// key derives a stream key from the seed, a domain and any number of ids.
func key(seed, domain uint64, ids ...uint64) uint64 {
	k := splitmix64(seed ^ domain)
	for _, id := range ids {
		k = splitmix64(k ^ id)
	}
	return k
}

// rng is wyrand: one add and one 128-bit multiply per value, plenty for choosing words.
type rng struct{ s uint64 }

func newRNG(k uint64) rng { return rng{s: k} }

func (r *rng) next() uint64 {
	r.s += 0xa0761d6478bd642f
	hi, lo := bits.Mul64(r.s, r.s^0xe7037ed1a0b428db)
	return hi ^ lo
}

// below returns a value in [0, n) by Lemire's multiply-high (no division, no platform variance).
func (r *rng) below(n int) int {
	hi, _ := bits.Mul64(r.next(), uint64(n))
	return int(hi)
}
