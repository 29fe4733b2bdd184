package scheduler

import (
	"context"
	"time"
)

// Item is one request to schedule. The scheduler reads Timestamp, SessionID, Turn and Warmup;
// Index and Payload are the caller's and come back untouched in the SendFunc call.
type Item struct {
	// Index identifies the item to the caller (for example its row in the trace).
	Index int
	// Timestamp is the request's arrival time in the trace, from the trace's origin.
	Timestamp time.Duration
	// SessionID groups the turns of a conversation; empty means a pure open-loop request.
	SessionID string
	// Turn orders the turns of a session: turn n+1 waits for turn n's response (see Pacer).
	Turn int
	// Warmup marks a throwaway request: Run sends all warmup items first, as their own phase,
	// and waits for them to finish before the measured run's clock starts.
	Warmup bool
	// Payload carries whatever the sender needs (the synthesized request).
	Payload any

	// seq is the item's position in its pacer, set by NewPacer so Done can find it.
	seq int
}

// Timing is what the scheduler knows about one send, on the Clock's time base (nanoseconds
// since the phase started). SentNS - ScheduledNS is the lateness; it includes QueueWaitNS, so
// latencies measured from ScheduledNS include the time spent queueing behind the concurrency
// ceiling (no coordinated omission).
type Timing struct {
	// ScheduledNS is when the item was due: its trace offset / speed, or for a gated session
	// turn the time its previous turn's answer released it (see Pacer).
	ScheduledNS int64
	// SentNS is when the send started: after the concurrency slot was acquired, read just
	// before SendFunc is called. A sender may refine it (e.g. to when the request was written)
	// with Clock.
	SentNS int64
	// QueueWaitNS is how long the item waited for a slot under MaxConcurrency, from its
	// hand-off to a sender (at its scheduled time, or when a late dispatcher got to it) until
	// a slot was free; 0 without a ceiling or when a slot was free. So SentNS - ScheduledNS
	// = the dispatcher's own lateness + QueueWaitNS.
	QueueWaitNS int64
	// ClientBacklogNS is how much of the item's lateness came from the client being at its
	// own limit (Config.ClientLimit): the dispatcher held it, or an item before it, until a
	// request returned. It is part of SentNS - ScheduledNS - QueueWaitNS, never of QueueWaitNS.
	ClientBacklogNS int64
	// Clock is the time base of these offsets; senders read their chunk and completion times
	// from it so every offset of a run is comparable. The measured phase starts a new Clock
	// at 0; warmup sends have their own, started when the warmup began.
	Clock *Clock
}

// SendFunc sends one item and returns when its request has completed (answered, failed or
// canceled through ctx). Run calls it on its own goroutine and never waits on it before
// sending the next item; a session's next turn waits for it to return. It must be safe for
// concurrent use.
type SendFunc func(ctx context.Context, it Item, t Timing)
