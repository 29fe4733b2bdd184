package scheduler

import "time"

// Clock is a monotonic nanosecond clock with its origin at the start of a run phase. The
// scheduler and the sender read the same Clock so scheduled, sent and chunk offsets share one
// time base.
type Clock struct {
	start time.Time
}

// NewClock returns a clock whose origin is now.
func NewClock() *Clock { return &Clock{start: time.Now()} }

// Now returns the nanoseconds elapsed since the clock's origin, from the monotonic clock.
func (c *Clock) Now() int64 { return int64(time.Since(c.start)) }

// Start returns the wall-clock time of the origin, for labelling results.
func (c *Clock) Start() time.Time { return c.start }

// NewClockAt returns a clock whose origin is the instant at, past or future (Now is negative
// before it). It keeps the monotonic reading: shards on several machines share the instant
// through the wall clock once, and then no wall-clock step moves their offsets.
func NewClockAt(at time.Time) *Clock {
	now := time.Now()
	return &Clock{start: now.Add(at.Sub(now))}
}
