package progress

import (
	"context"
	"sync"
	"time"

	"github.com/llm-replay/replay/scheduler"
)

// inFlight keeps when each request still in flight was handed to its sender, so that once the
// schedule is done the display can say what it is waiting for: how many requests, and how
// long the oldest has been out. A map under a lock: it holds only the requests in flight, and
// a send and its return each take the lock once.
type inFlight struct {
	mu    sync.Mutex
	since map[int]time.Time
}

// start marks request i as sent at t; done as returned.
func (f *inFlight) start(i int, t time.Time) {
	f.mu.Lock()
	f.since[i] = t
	f.mu.Unlock()
}

func (f *inFlight) done(i int) {
	f.mu.Lock()
	delete(f.since, i)
	f.mu.Unlock()
}

// oldest is how many requests are in flight and the age at now of the one sent first.
func (f *inFlight) oldest(now time.Time) (int, time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var first time.Time
	for _, t := range f.since {
		if first.IsZero() || t.Before(first) {
			first = t
		}
	}
	if first.IsZero() {
		return 0, 0
	}
	return len(f.since), now.Sub(first)
}

// Track wraps the measured schedule's sender so the display knows each request's age while it
// is in flight (the scheduler's counters have the count, not the ages). A request is keyed by
// its item's index, which is unique in one schedule.
func (p *Display) Track(send scheduler.SendFunc) scheduler.SendFunc {
	return func(ctx context.Context, it scheduler.Item, t scheduler.Timing) {
		p.flight.start(it.Index, time.Now())
		defer p.flight.done(it.Index)
		send(ctx, it, t)
	}
}
