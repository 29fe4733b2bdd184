package prefixcache

import (
	"math"
	"strings"
	"testing"
)

// TestKVSize: Llama-3-8B's 128 KiB per token (32 layers, 8 KV heads of 128, bf16) makes a
// 512-token block 64 MiB, 16 of them a GiB.
func TestKVSize(t *testing.T) {
	if got := KVBytesPerToken(32, 8, 128, 2); got != 128<<10 {
		t.Fatalf("KVBytesPerToken %d", got)
	}
	k := KVSize{BytesPerToken: 128 << 10, BlockTokens: 512}
	if k.BlockBytes() != 64<<20 || k.GiB(16) != 1 || k.GiB(24) != 1.5 {
		t.Errorf("block %v bytes, 16 blocks %v GiB", k.BlockBytes(), k.GiB(16))
	}
	for gib, want := range map[float64]int{1: 16, 1.99: 31, 0.0625: 1, 1000: 16000} {
		if n, err := k.Blocks(gib); n != want || err != nil {
			t.Errorf("%v GiB: %d blocks, %v; want %d", gib, n, err, want)
		}
	}
	for _, c := range []struct {
		k    KVSize
		gib  float64
		want string
	}{
		{k, 0.01, "holds no whole block"},
		{k, 0, "must be a positive number"},
		{k, -1, "must be a positive number"},
		{k, math.NaN(), "must be a positive number"},
		{k, math.Inf(1), "must be a positive number"},
		{k, 1e12, "more than"},
		{KVSize{BlockTokens: 512}, 1, "both must be positive"},
	} {
		if n, err := c.k.Blocks(c.gib); err == nil || n != 0 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v, %v GiB: %d, %v; want an error with %q", c.k, c.gib, n, err, c.want)
		}
	}
}
