package prefixcache

import (
	"math/rand/v2"
	"testing"
)

func TestInfinite(t *testing.T) {
	r := HitRate([][]uint64{{1, 2, 3}, {1, 2, 4}, {5}, {1, 2, 3}}, 0)
	if r.Hits != 5 || r.Blocks != 10 || r.Rate() != 0.5 {
		t.Fatalf("%+v", r)
	}
	if (Result{}).Rate() != 0 {
		t.Fatal("empty rate")
	}
}

// A block seen before but behind a missed block cannot be reused by a prefix cache.
func TestPrefixOnly(t *testing.T) {
	r := HitRate([][]uint64{{1, 2}, {9, 2}}, 0)
	if r.Hits != 0 {
		t.Fatalf("%+v", r)
	}
}

func TestLRU(t *testing.T) {
	if r := HitRate([][]uint64{{1, 2}, {3, 4}, {1, 2}}, 2); r.Hits != 0 {
		t.Errorf("capacity 2: %+v", r)
	}
	if r := HitRate([][]uint64{{1, 2}, {3, 4}, {1, 2}}, 4); r.Hits != 2 {
		t.Errorf("capacity 4: %+v", r)
	}
	// Eviction takes a prefix's tail first: after {1,2,3} and {4} in 3 blocks, 3 is gone but
	// 1 and 2 still hit.
	c := New(3)
	c.Add([]uint64{1, 2, 3})
	c.Add([]uint64{4})
	if got := c.Add([]uint64{1, 2, 3}); got != 2 {
		t.Errorf("after eviction: %d hits, want 2", got)
	}
}

// With room for every block, LRU agrees with the infinite cache.
func TestLRUBigEqualsInfinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var reqs [][]uint64
	next := uint64(0)
	var prefixes [][]uint64
	for i := 0; i < 2000; i++ {
		var h []uint64
		if len(prefixes) > 0 && rng.IntN(3) > 0 {
			p := prefixes[rng.IntN(len(prefixes))]
			h = append(h, p[:1+rng.IntN(len(p))]...)
		}
		for k := rng.IntN(6); k >= 0; k-- {
			h = append(h, next)
			next++
		}
		prefixes = append(prefixes, h)
		reqs = append(reqs, h)
	}
	inf := HitRate(reqs, 0)
	big := HitRate(reqs, int(next))
	small := HitRate(reqs, 50)
	if inf != big || small.Hits >= inf.Hits || inf.Hits == 0 {
		t.Fatalf("infinite %+v, LRU all %+v, LRU 50 %+v", inf, big, small)
	}
}
