package scheduler

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// At the client's limit, sends are held, not failed: never more than ClientLimit in flight,
// every item sent, and the hold recorded as backlog apart from queue wait.
func TestClientLimitHoldsSends(t *testing.T) {
	var inFlight, peak atomic.Int64
	rec := &recorder{hold: func(ctx context.Context, it Item) {
		n := inFlight.Add(1)
		storeMax(&peak, n)
		sleepFor(20*time.Millisecond)(ctx, it)
		inFlight.Add(-1)
	}}
	items := make([]Item, 40)
	for i := range items {
		items[i] = Item{Index: i, Timestamp: time.Duration(i) * time.Millisecond}
	}
	st, err := Run(context.Background(), items, Config{ClientLimit: 4}, rec.send)
	if err != nil {
		t.Fatal(err)
	}
	if peak.Load() > 4 || st.MaxInFlight > 4 {
		t.Fatalf("in flight peaked at %d (stats %d), limit 4", peak.Load(), st.MaxInFlight)
	}
	if st.Sent != 40 || st.NotSent != 0 {
		t.Fatalf("sent %d, not sent %d: want 40 and 0", st.Sent, st.NotSent)
	}
	// 40 sends of 20 ms through 4 slots take 200 ms where the trace spans 40 ms: most are held.
	if st.Held < 30 || st.MaxBacklogNS < int64(100*time.Millisecond) {
		t.Fatalf("held %d, max backlog %v: want most sends held, the last ones by 100+ ms", st.Held, time.Duration(st.MaxBacklogNS))
	}
	for i, r := range rec.byIndex() {
		tm := r.timing
		late := tm.SentNS - tm.ScheduledNS - tm.QueueWaitNS
		if tm.QueueWaitNS != 0 || tm.ClientBacklogNS < 0 || tm.ClientBacklogNS > late {
			t.Fatalf("item %d: backlog %d, queue wait %d, lateness %d: want 0 <= backlog <= lateness, no queue wait",
				i, tm.ClientBacklogNS, tm.QueueWaitNS, late)
		}
	}
}

// Canceled while holding for a slot: the held items count as not sent, none is lost.
func TestClientLimitCanceledWhileHeld(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	rec := &recorder{hold: func(ctx context.Context, _ Item) { <-ctx.Done() }}
	items := make([]Item, 10) // all due at once: 2 sent, the dispatcher holds the third
	for i := range items {
		items[i] = Item{Index: i}
	}
	time.AfterFunc(50*time.Millisecond, cancel)
	st, err := Run(ctx, items, Config{ClientLimit: 2}, rec.send)
	if err != nil {
		t.Fatal(err)
	}
	if st.Stop != StopCanceled || st.Sent != 2 || st.NotSent != 8 || st.Sent+st.NotSent != st.Selected {
		t.Fatalf("stop %s, sent %d, not sent %d of %d: want canceled, 2 and 8", st.Stop, st.Sent, st.NotSent, st.Selected)
	}
}

// Under StartAt the schedule's origin is that instant: a run begun 200 ms after it sends the
// items already due at once and records them late; items after it leave on time.
func TestStartAtInThePast(t *testing.T) {
	rec := &recorder{}
	items := make([]Item, 10)
	for i := range items {
		items[i] = Item{Index: i, Timestamp: time.Duration(i) * 50 * time.Millisecond}
	}
	start := time.Now().Add(-200 * time.Millisecond)
	if _, err := Run(context.Background(), items, Config{StartAt: start}, rec.send); err != nil {
		t.Fatal(err)
	}
	for i, r := range rec.byIndex() {
		late := time.Duration(r.timing.SentNS - r.timing.ScheduledNS)
		due := time.Duration(i) * 50 * time.Millisecond
		switch {
		case due < 150*time.Millisecond && late < 50*time.Millisecond:
			t.Errorf("item %d was due before the start: lateness %v, want the ~%v it missed", i, late, 200*time.Millisecond-due)
		case due > 250*time.Millisecond && late > 20*time.Millisecond:
			t.Errorf("item %d was due after the start: lateness %v, want on time", i, late)
		}
	}
}
