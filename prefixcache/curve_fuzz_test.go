package prefixcache

import (
	"testing"
	"time"

	"github.com/llm-replay/replay/internal/testenv"
)

// fuzzRequests decodes fuzz bytes into requests over 16 hashes: 0xff ends a request, any
// other byte is hash byte%16. Few hashes make repeats, out-of-order reuse and evictions common.
func fuzzRequests(data []byte) [][]uint64 {
	reqs := [][]uint64{nil}
	for _, b := range data {
		if b == 0xff {
			reqs = append(reqs, nil)
			continue
		}
		last := len(reqs) - 1
		reqs[last] = append(reqs[last], uint64(b%16))
	}
	return reqs
}

// FuzzCurve holds the one-pass curve to a Cache simulation at every capacity from 1 to past
// the distinct blocks and infinite, with the time window packed every few touches (the first
// byte picks how small it is) as well as the default one.
func FuzzCurve(f *testing.F) {
	f.Add([]byte{3, 1, 2, 3, 0xff, 4, 0xff, 1, 2, 3})
	f.Add([]byte{1, 5, 5, 0xff, 5, 5, 0xff, 9, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || len(data) > 4096 {
			return
		}
		defer testenv.PanicAfter(10*time.Second, "FuzzCurve input")()
		reqs := fuzzRequests(data[1:])
		for _, c := range []*Curve{newCurve(1 + int(data[0]%8)), NewCurve()} {
			for _, r := range reqs {
				c.Add(r)
			}
			for capacity := 0; capacity <= 18; capacity++ {
				if got, want := c.At(capacity), HitRate(reqs, capacity); got != want {
					t.Fatalf("capacity %d: curve %+v, HitRate %+v (requests %v)", capacity, got, want, reqs)
				}
			}
		}
	})
}
