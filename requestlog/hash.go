package requestlog

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
	"slices"
	"strings"
)

// KeySize is the length of a hash key in bytes.
const KeySize = 32

// NewKey returns a random hash key. Traces hashed with different keys share no hashes, so a
// default (random) key makes a trace's hashes impossible to look up in a dictionary of common
// prompts, even by someone who has the same prompts.
func NewKey() ([]byte, error) {
	k := make([]byte, KeySize)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("requestlog: making a hash key: %w", err)
	}
	return k, nil
}

// ReadKeyFile reads a hash key from path: the file's bytes, or when the file holds only hex
// digits (and white space), the bytes they spell. Keys shorter than 16 bytes are refused.
func ReadKeyFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("requestlog: hash key: %w", err)
	}
	if s := strings.TrimSpace(string(data)); s != "" {
		if k, err := hex.DecodeString(s); err == nil {
			data = k
		}
	}
	if len(data) < 16 {
		return nil, fmt.Errorf("requestlog: hash key %s: %d bytes, want at least 16", path, len(data))
	}
	return data, nil
}

// blockHasher computes the keyed hash chain of a prompt's token ids: block i's hash is the first
// 8 bytes (big endian) of HMAC-SHA256(key, parent hash as 8 bytes big endian || the block's ids
// as 4-byte big-endian integers), with parent 0 for the first block. Only whole blocks are
// hashed: engines do not cache a partial last block. It is not safe for concurrent use.
type blockHasher struct {
	mac hash.Hash
	buf []byte
}

func newBlockHasher(key []byte) (*blockHasher, error) {
	if len(key) == 0 {
		return nil, errors.New("requestlog: empty hash key")
	}
	return &blockHasher{mac: hmac.New(sha256.New, key)}, nil
}

// hashes returns the chain for ids in blocks of size tokens (nil when there is no whole block).
func (h *blockHasher) hashes(ids []int, size int) []uint64 {
	return h.hashesAfter(ids, size, nil, nil)
}

// hashesAfter is hashes for a prompt that may extend an earlier one (prevIDs, whose chain is
// prevHashes): the leading whole blocks the two share have the same hashes, so those are
// copied and only the rest is hashed.
func (h *blockHasher) hashesAfter(ids []int, size int, prevIDs []int, prevHashes []uint64) []uint64 {
	n := len(ids) / size
	if n == 0 {
		return nil
	}
	out := make([]uint64, n)
	shared := 0
	for shared < min(n, len(prevHashes)) && slices.Equal(ids[shared*size:(shared+1)*size], prevIDs[shared*size:(shared+1)*size]) {
		shared++
	}
	copy(out, prevHashes[:shared])
	var parent uint64
	if shared > 0 {
		parent = out[shared-1]
	}
	var sum [sha256.Size]byte
	for b := shared; b < n; b++ {
		h.buf = binary.BigEndian.AppendUint64(h.buf[:0], parent)
		for _, id := range ids[b*size : (b+1)*size] {
			h.buf = binary.BigEndian.AppendUint32(h.buf, uint32(id))
		}
		h.mac.Reset()
		h.mac.Write(h.buf)
		parent = binary.BigEndian.Uint64(h.mac.Sum(sum[:0]))
		out[b] = parent
	}
	return out
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
