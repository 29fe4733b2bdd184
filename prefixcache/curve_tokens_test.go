package prefixcache

import (
	"math/rand/v2"
	"testing"
)

// TestCurveTokensEqualsLRU: TokensAt is, at every capacity, what a per-capacity Cache's hits
// give when each request's hit blocks are weighed as AddPrompt says (block size tokens each,
// at most all the prompt's tokens but its last), on generated requests of varied lengths.
func TestCurveTokensEqualsLRU(t *testing.T) {
	const blockSize = 16
	w := newWorkload(3)
	rng := rand.New(rand.NewPCG(3, 4))
	var reqs [][]uint64
	var prompts []int
	c := NewCurve()
	for range 5000 {
		r := append([]uint64(nil), w.request()...)
		// Most prompts end inside their last block; some fill it exactly (its last token
		// then cannot hit), a few are a single token.
		p := max(1, (len(r)-1)*blockSize+1+rng.IntN(blockSize))
		if rng.IntN(10) == 0 {
			p = len(r) * blockSize
		}
		reqs, prompts = append(reqs, r), append(prompts, p)
		c.AddPrompt(r, blockSize, p)
	}
	for _, capacity := range []int{0, 1, 7, 100, 1000, 5000, 20000} {
		lru := New(capacity)
		var want TokenResult
		for i, r := range reqs {
			hits := lru.Add(r)
			want.HitTokens += int64(min(hits*blockSize, prompts[i]-1))
			want.PromptTokens += int64(prompts[i])
		}
		if got := c.TokensAt(capacity); got != want {
			t.Errorf("capacity %d: TokensAt %+v, LRU weighed %+v", capacity, got, want)
		}
		if got, want := c.At(capacity), lru.Result(); got != want {
			t.Errorf("capacity %d: At %+v after AddPrompt, LRU %+v", capacity, got, want)
		}
	}
	if r := c.TokensAt(0).Rate(); !(r > 0.2 && r < 1) {
		t.Errorf("token hit rate %.3f at infinite capacity: the workload should share prefixes", r)
	}
}
