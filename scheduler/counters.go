package scheduler

import (
	"slices"
	"sync/atomic"
)

// Counters are live, lock-free counts of the measured phase for a progress display. All
// methods are safe to call while Run is running. Warmup sends are not counted here.
type Counters struct {
	sent, completed, inFlight, queued, notSent atomic.Int64
	maxLateness, maxQueueWait                  atomic.Int64
	held, maxBacklog, maxInFlight              atomic.Int64
	// recent keeps the last dispatch latenesses in a ring for LatenessP99; the exact
	// distribution is computed from the result rows by the analysis package.
	recent [1024]atomic.Int64
	next   atomic.Uint64
}

// Sent counts items handed to the SendFunc.
func (c *Counters) Sent() int64 { return c.sent.Load() }

// Completed counts sends that returned.
func (c *Counters) Completed() int64 { return c.completed.Load() }

// InFlight counts sends started and not yet returned.
func (c *Counters) InFlight() int64 { return c.inFlight.Load() }

// Queued counts items past their scheduled time waiting for a concurrency slot.
func (c *Counters) Queued() int64 { return c.queued.Load() }

// NotSent counts selected items that will not be sent: the run was stopped by Duration or
// canceled before their turn. It is final once Run returns.
func (c *Counters) NotSent() int64 { return c.notSent.Load() }

// MaxLatenessNS is the largest dispatch lateness so far: SentNS - ScheduledNS - QueueWaitNS,
// that is how late the scheduler itself was, without the wait for a concurrency slot.
func (c *Counters) MaxLatenessNS() int64 { return c.maxLateness.Load() }

// MaxQueueWaitNS is the longest wait for a concurrency slot so far.
func (c *Counters) MaxQueueWaitNS() int64 { return c.maxQueueWait.Load() }

// Held counts sends delayed because the client was at its own limit (Config.ClientLimit).
func (c *Counters) Held() int64 { return c.held.Load() }

// MaxBacklogNS is the longest such delay so far.
func (c *Counters) MaxBacklogNS() int64 { return c.maxBacklog.Load() }

// MaxInFlight is the most sends in flight at once so far.
func (c *Counters) MaxInFlight() int64 { return c.maxInFlight.Load() }

// LatenessP99NS estimates the 99th percentile of the last 1,024 dispatch latenesses, for a
// progress line; it is not a summary statistic.
func (c *Counters) LatenessP99NS() int64 {
	n := min(c.next.Load(), uint64(len(c.recent)))
	if n == 0 {
		return 0
	}
	v := make([]int64, n)
	for i := range v {
		v[i] = c.recent[i].Load()
	}
	slices.Sort(v)
	return v[(len(v)*99-1)/100]
}

func (c *Counters) observeSend(lateness, queueWait int64) {
	c.sent.Add(1)
	storeMax(&c.maxInFlight, c.inFlight.Add(1))
	c.recent[(c.next.Add(1)-1)%uint64(len(c.recent))].Store(lateness)
	storeMax(&c.maxLateness, lateness)
	if queueWait > 0 {
		storeMax(&c.maxQueueWait, queueWait)
	}
}

func (c *Counters) observeHold(backlog int64) {
	c.held.Add(1)
	storeMax(&c.maxBacklog, backlog)
}

func (c *Counters) observeDone() {
	c.inFlight.Add(-1)
	c.completed.Add(1)
}

func storeMax(a *atomic.Int64, v int64) {
	for {
		old := a.Load()
		if v <= old || a.CompareAndSwap(old, v) {
			return
		}
	}
}
