package prefixcache

import (
	"fmt"
	"math"
)

// KVBytesPerToken is the KV cache one token takes in a model with standard (multi-head or
// grouped-query) attention: a K and a V vector of headDim elements for each KV head, in every
// layer.
func KVBytesPerToken(layers, kvHeads, headDim, bytesPerElem int) int {
	return 2 * layers * kvHeads * headDim * bytesPerElem
}

// GiB is 2^30 bytes, the unit engines report KV cache sizes in.
const GiB = 1 << 30

// KVSize converts a cache's capacity between blocks and bytes, for one model's KV bytes per
// token and a trace's block size.
type KVSize struct {
	BytesPerToken int // see KVBytesPerToken
	BlockTokens   int // tokens per hashed block
}

// BlockBytes is one block's KV cache.
func (k KVSize) BlockBytes() float64 { return float64(k.BytesPerToken) * float64(k.BlockTokens) }

// GiB is the KV cache of blocks blocks.
func (k KVSize) GiB(blocks int) float64 { return float64(blocks) * k.BlockBytes() / GiB }

// Blocks is the number of whole blocks gib GiB of KV cache holds. It fails when the size is
// unusable (no block fits, or not a positive finite size) rather than return 0, which would
// mean an infinite cache.
func (k KVSize) Blocks(gib float64) (int, error) {
	if k.BytesPerToken <= 0 || k.BlockTokens <= 0 {
		return 0, fmt.Errorf("prefixcache: KV size of %d bytes per token, %d tokens per block: both must be positive", k.BytesPerToken, k.BlockTokens)
	}
	if !(gib > 0) || math.IsInf(gib, 0) {
		return 0, fmt.Errorf("prefixcache: cache size %v GiB: must be a positive number", gib)
	}
	n := math.Floor(gib * GiB / k.BlockBytes())
	if n < 1 {
		return 0, fmt.Errorf("prefixcache: %v GiB holds no whole block of %.0f bytes (%d tokens x %d bytes)", gib, k.BlockBytes(), k.BlockTokens, k.BytesPerToken)
	}
	if n > float64(maxDistinct) {
		return 0, fmt.Errorf("prefixcache: %v GiB is %.0f blocks, more than %d", gib, n, maxDistinct)
	}
	return int(n), nil
}
