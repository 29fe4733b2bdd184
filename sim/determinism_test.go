package sim

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// TestDeterministicOverHTTP replays the same request sequence against servers with the same and
// with another seed, and compares each token's virtual time relative to its request's arrival.
func TestDeterministicOverHTTP(t *testing.T) {
	schedule := func(seed int64) []tokenTime {
		cfg := fastConfig()
		cfg.Seed = seed
		cfg.Jitter = 0.3
		cfg.PrefillPerToken = 20 * time.Microsecond
		s, url := startServer(t, cfg)
		var mu sync.Mutex
		var got []tokenTime
		s.eng.mu.Lock()
		inner := s.eng.core.onToken
		s.eng.core.onToken = func(sq *seq, tokens int, at time.Duration) {
			mu.Lock()
			got = append(got, tokenTime{sq.id, tokens, at - sq.arrival})
			mu.Unlock()
			inner(sq, tokens, at)
		}
		s.eng.mu.Unlock()
		for i := range 6 {
			res := post(t, url, "/v1/completions", map[string]any{"prompt": ids(i*7, 50+i*90), "max_tokens": 3 + i, "stream": true})
			if !res.done {
				t.Fatalf("request %d: %v", i, res.err)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		return got
	}
	a, b, c := schedule(5), schedule(5), schedule(6)
	if len(a) != 3+4+5+6+7+8 {
		t.Fatalf("%d token events", len(a))
	}
	if !slices.Equal(a, b) {
		t.Errorf("same seed, different schedules:\n%v\n%v", a, b)
	}
	if slices.Equal(a, c) {
		t.Error("different seeds, same schedule")
	}
}
