package accesslog

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"os"
	"strings"
	"sync"
)

// KeySize is the length of a hash key in bytes.
const KeySize = 32

// NewKey returns a random hash key. Traces hashed with different keys share no hashes, so a
// default (random) key makes a trace's hashes impossible to look up in a dictionary of common
// prompts, even by someone who has the same prompts.
func NewKey() ([]byte, error) {
	k := make([]byte, KeySize)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("accesslog: making a hash key: %w", err)
	}
	return k, nil
}

// ReadKeyFile reads a hash key from path: the file's bytes, or when the file holds only hex
// digits (and white space), the bytes they spell. Keys shorter than 16 bytes are refused.
func ReadKeyFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("accesslog: hash key: %w", err)
	}
	if s := strings.TrimSpace(string(data)); s != "" {
		if k, err := hex.DecodeString(s); err == nil {
			data = k
		}
	}
	if len(data) < 16 {
		return nil, fmt.Errorf("accesslog: hash key %s: %d bytes, want at least 16", path, len(data))
	}
	return data, nil
}

// blockHasher computes the keyed hash chain of a prompt's token ids: block i's hash is the first
// 8 bytes (big endian) of HMAC-SHA256(key, parent hash as 8 bytes big endian || the block's ids
// as 4-byte big-endian integers), with parent 0 for the first block. Only whole blocks are
// hashed: engines do not cache a partial last block. It is not safe for concurrent use, but
// hashers may share a chainCache.
type blockHasher struct {
	mac   hash.Hash
	buf   []byte
	cache *chainCache // nil: none
}

func newBlockHasher(key []byte, cache *chainCache) (*blockHasher, error) {
	if len(key) == 0 {
		return nil, errors.New("accesslog: empty hash key")
	}
	return &blockHasher{mac: hmac.New(sha256.New, key), cache: cache}, nil
}

// hashes returns the chain for ids in blocks of size tokens (nil when there is no whole block).
func (h *blockHasher) hashes(ids []int, size int) []uint64 {
	n := len(ids) / size
	if n == 0 {
		return nil
	}
	out := make([]uint64, n)
	var parent uint64
	var sum [sha256.Size]byte
	for b := range n {
		h.buf = binary.BigEndian.AppendUint64(h.buf[:0], parent)
		for _, id := range ids[b*size : (b+1)*size] {
			h.buf = binary.BigEndian.AppendUint32(h.buf, uint32(id))
		}
		if v, ok := h.cache.get(h.buf); ok {
			parent = v
		} else {
			h.mac.Reset()
			h.mac.Write(h.buf)
			parent = binary.BigEndian.Uint64(h.mac.Sum(sum[:0]))
			h.cache.put(h.buf, parent)
		}
		out[b] = parent
	}
	return out
}

// chainCache remembers block hashes by their HMAC input (parent hash and ids): each chat turn
// repeats its conversation's prompt, so most of a request's blocks were hashed for an earlier
// one, and a map lookup costs a small part of an HMAC. It is exact (the input is the key) and
// bounded: two generations of at most chainCacheEntries each, as tokenizer.Cached keeps
// segments. The key is not part of a cache entry, so a cache serves hashers of one key only.
// Safe for concurrent use; a nil *chainCache caches nothing.
type chainCache struct {
	mu       sync.Mutex
	cur, old map[string]uint64
}

// chainCacheEntries bounds a generation: about 150 bytes an entry with 16-token blocks, so the
// cache holds at most ~75 MB.
const chainCacheEntries = 1 << 18

func newChainCache() *chainCache {
	return &chainCache{cur: map[string]uint64{}}
}

func (c *chainCache) get(k []byte) (uint64, bool) {
	if c == nil {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.cur[string(k)]; ok {
		return v, true
	}
	v, ok := c.old[string(k)]
	if ok {
		c.putLocked(string(k), v)
	}
	return v, ok
}

func (c *chainCache) put(k []byte, v uint64) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.putLocked(string(k), v)
	c.mu.Unlock()
}

func (c *chainCache) putLocked(k string, v uint64) {
	if len(c.cur) >= chainCacheEntries {
		c.old, c.cur = c.cur, make(map[string]uint64, len(c.cur))
	}
	c.cur[k] = v
}

// pseudonym maps an identifier from the log (a session or user id) to a keyed, irreversible
// one, so the output can be shared without them.
func (h *blockHasher) pseudonym(id string) string {
	h.mac.Reset()
	h.mac.Write([]byte("id\x00"))
	h.mac.Write([]byte(id))
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.mac.Sum(sum[:0])[:8])
}
