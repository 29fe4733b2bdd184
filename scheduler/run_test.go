package scheduler

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// record is what a test sender saw for one item.
type record struct {
	it     Item
	timing Timing
	done   int64 // Clock offset when the send returned
	ctxErr error
}

// recorder is a SendFunc that keeps every call and holds each request for hold(it).
type recorder struct {
	mu   sync.Mutex
	rows []record
	hold func(ctx context.Context, it Item)
}

func (r *recorder) send(ctx context.Context, it Item, t Timing) {
	if r.hold != nil {
		r.hold(ctx, it)
	}
	rec := record{it: it, timing: t, done: t.Clock.Now(), ctxErr: ctx.Err()}
	r.mu.Lock()
	r.rows = append(r.rows, rec)
	r.mu.Unlock()
}

func (r *recorder) byIndex() map[int]record {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := map[int]record{}
	for _, rec := range r.rows {
		m[rec.it.Index] = rec
	}
	return m
}

func sleepFor(d time.Duration) func(context.Context, Item) {
	return func(ctx context.Context, _ Item) {
		select {
		case <-time.After(d):
		case <-ctx.Done():
		}
	}
}

// TestEqualTimestampsLeaveTogether: 50 requests stamped with
// the same millisecond must all be sent within 1 ms of each other. The machine running the
// tests may be busy with other work, so each variant gets a few attempts; a scheduler that
// does not batch (or hands off slowly) fails every one.
func TestEqualTimestampsLeaveTogether(t *testing.T) {
	for _, tc := range []struct {
		name string
		tune tuning
	}{
		{"parked workers", tuning{}},
		{"goroutine per send", tuning{goPerSend: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var spreads []time.Duration
			for range 5 {
				spread := equalTimestampSpread(t, tc.tune)
				spreads = append(spreads, spread)
				if spread < time.Millisecond {
					t.Logf("50 equal-timestamp sends spread over %v (attempts %v)", spread, spreads)
					return
				}
			}
			if raceEnabled {
				t.Skipf("spread %v under the race detector, which slows hand-offs; bound not checked", spreads)
			}
			t.Fatalf("equal-timestamp sends spread over %v, want < 1ms", spreads)
		})
	}
}

// equalTimestampSpread replays one item, then 50 stamped 20 ms later, and returns max - min
// SentNS of the 50.
func equalTimestampSpread(t *testing.T, tune tuning) time.Duration {
	trace := []Item{{Index: 0, Timestamp: 1000 * ms}}
	for i := 1; i <= 50; i++ {
		trace = append(trace, Item{Index: i, Timestamp: 1020 * ms})
	}
	rec := &recorder{hold: sleepFor(20 * ms)} // requests stay in flight meanwhile
	stats, err := Run(context.Background(), trace, Config{tune: tune}, rec.send)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Sent != 51 || stats.NotSent != 0 || stats.Stop != StopCompleted {
		t.Fatalf("stats %+v, want 51 sent", stats)
	}
	rows := rec.byIndex()
	var sent []int64
	for i := 1; i <= 50; i++ {
		r := rows[i]
		if r.timing.ScheduledNS != int64(20*ms) {
			t.Fatalf("item %d scheduled at %d ns, want 20 ms", i, r.timing.ScheduledNS)
		}
		if r.timing.SentNS < r.timing.ScheduledNS {
			t.Fatalf("item %d left at %d ns, before its due time", i, r.timing.SentNS)
		}
		sent = append(sent, r.timing.SentNS)
	}
	return time.Duration(slices.Max(sent) - slices.Min(sent))
}

// TestMaxConcurrencyQueueWait: with a cap of 2 and six simultaneous 50 ms requests, the
// requests go in three waves, and the later waves record ~50 and ~100 ms of queue wait, also
// counted in their lateness (sent - scheduled), so latency from the scheduled time includes it.
func TestMaxConcurrencyQueueWait(t *testing.T) {
	trace := items(0, 0, 0, 0, 0, 0)
	rec := &recorder{hold: sleepFor(50 * ms)}
	counters := &Counters{}
	stats, err := Run(context.Background(), trace, Config{MaxConcurrency: 2, Counters: counters}, rec.send)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Sent != 6 {
		t.Fatalf("sent %d, want 6", stats.Sent)
	}
	rows := rec.byIndex()
	var waits, lateness []time.Duration
	for _, r := range rows {
		tm := r.timing
		if tm.SentNS-tm.ScheduledNS < tm.QueueWaitNS {
			t.Errorf("item %d: lateness %v does not include its queue wait %v", r.it.Index,
				time.Duration(tm.SentNS-tm.ScheduledNS), time.Duration(tm.QueueWaitNS))
		}
		if tm.QueueWaitNS > 0 {
			// A queued item gets its slot when an earlier request returns.
			freed := false
			for _, o := range rows {
				freed = freed || (o.it.Index != r.it.Index && o.done <= tm.SentNS && tm.SentNS-o.done < int64(20*ms))
			}
			if !freed {
				t.Errorf("item %d sent at %v, when no request had just returned", r.it.Index, time.Duration(tm.SentNS))
			}
		}
		waits = append(waits, time.Duration(tm.QueueWaitNS))
		lateness = append(lateness, time.Duration(tm.SentNS-tm.ScheduledNS))
	}
	slices.Sort(waits)
	slices.Sort(lateness)
	t.Logf("queue waits %v, lateness %v", waits, lateness)
	for i := range waits {
		// Two leave at once; four wait. In three waves of two, the second leaves after one
		// 50 ms request and the third after two, so latency from the scheduled time includes
		// at least that much. A slow machine only lengthens it.
		if queued := waits[i] > 0; queued != (i >= 2) {
			t.Errorf("queue waits %v: want exactly 4 non-zero", waits)
			break
		}
		if want := time.Duration(i/2) * 50 * ms; lateness[i] < want-ms {
			t.Errorf("lateness #%d = %v, want at least %v", i, lateness[i], want)
		}
	}
	if got := time.Duration(stats.MaxQueueWaitNS); got != waits[5] {
		t.Errorf("stats max queue wait %v, want %v", got, waits[5])
	}
	if counters.InFlight() != 0 || counters.Queued() != 0 || counters.Completed() != 6 {
		t.Errorf("counters in flight %d, queued %d, completed %d after the run",
			counters.InFlight(), counters.Queued(), counters.Completed())
	}
}

// TestMaxConcurrencyCountsQueued holds every request until the test lets it go, and checks the
// live counters while the cap is full.
func TestMaxConcurrencyCountsQueued(t *testing.T) {
	release := make(chan struct{})
	rec := &recorder{hold: func(context.Context, Item) { <-release }}
	counters := &Counters{}
	done := make(chan Stats)
	go func() {
		s, _ := Run(context.Background(), items(0, 0, 0, 0, 0), Config{MaxConcurrency: 2, Counters: counters}, rec.send)
		done <- s
	}()
	deadline := time.Now().Add(5 * time.Second)
	for counters.Queued() != 3 || counters.InFlight() != 2 {
		if time.Now().After(deadline) {
			t.Fatalf("queued %d, in flight %d; want 3 and 2", counters.Queued(), counters.InFlight())
		}
		time.Sleep(ms)
	}
	close(release)
	if s := <-done; s.Sent != 5 || s.MaxQueueWaitNS <= 0 {
		t.Fatalf("stats %+v, want 5 sent and a queue wait", s)
	}
}

// TestSessionTurnWaitsForAnswer runs a three-turn session for real: each turn must leave only
// after the previous one returned plus the trace's gap.
func TestSessionTurnWaitsForAnswer(t *testing.T) {
	trace := []Item{
		{Index: 0, Timestamp: 0, SessionID: "s", Turn: 0},
		{Index: 1, Timestamp: 10 * ms, SessionID: "s", Turn: 1},
		{Index: 2, Timestamp: 30 * ms, SessionID: "s", Turn: 2},
		{Index: 3, Timestamp: 15 * ms}, // open loop: leaves at 15 ms whatever the session does
	}
	rec := &recorder{hold: sleepFor(40 * ms)}
	if _, err := Run(context.Background(), trace, Config{}, rec.send); err != nil {
		t.Fatal(err)
	}
	rows := rec.byIndex()
	for turn, gap := range map[int]time.Duration{1: 10 * ms, 2: 20 * ms} {
		prev, cur := rows[turn-1], rows[turn]
		if cur.timing.ScheduledNS < prev.done+int64(gap) {
			t.Errorf("turn %d scheduled at %v, before turn %d's answer (%v) + gap %v", turn,
				time.Duration(cur.timing.ScheduledNS), turn-1, time.Duration(prev.done), gap)
		}
		if cur.timing.ScheduledNS > prev.done+int64(gap)+int64(20*ms) {
			t.Errorf("turn %d scheduled at %v, long after turn %d's answer (%v) + gap %v", turn,
				time.Duration(cur.timing.ScheduledNS), turn-1, time.Duration(prev.done), gap)
		}
	}
	if got := rows[3].timing.ScheduledNS; got != int64(15*ms) {
		t.Errorf("open-loop item scheduled at %v, want 15ms", time.Duration(got))
	}
}

func TestDurationStopsDispatch(t *testing.T) {
	var ts []time.Duration
	for i := range 100 {
		ts = append(ts, time.Duration(i)*10*ms)
	}
	rec := &recorder{}
	stats, err := Run(context.Background(), items(ts...), Config{Duration: 200 * ms}, rec.send)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Stop != StopDuration || stats.Selected != 100 || stats.Sent+stats.NotSent != 100 {
		t.Fatalf("stats %+v, want a duration stop with sent + not sent = 100", stats)
	}
	// 20 items are due before 200 ms; a busy machine may reach the deadline before sending
	// the last of them, but what was sent must be a prefix of the schedule.
	rows := rec.byIndex()
	if stats.Sent < 1 || stats.Sent > 20 || len(rows) != stats.Sent {
		t.Fatalf("sent %d (%d sends seen), want up to the 20 items due before 200 ms", stats.Sent, len(rows))
	}
	for i := range stats.Sent {
		if _, ok := rows[i]; !ok {
			t.Errorf("item %d was not sent although later ones were", i)
		}
	}
	for _, r := range rows {
		if r.timing.ScheduledNS >= int64(200*ms) {
			t.Errorf("item %d due at %v was sent after the duration", r.it.Index, time.Duration(r.timing.ScheduledNS))
		}
	}
}

func TestCancelWaitsForInFlight(t *testing.T) {
	var ts []time.Duration
	for i := range 50 {
		ts = append(ts, time.Duration(i)*20*ms)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rec := &recorder{hold: func(ctx context.Context, _ Item) { <-ctx.Done() }} // never answered
	time.AfterFunc(110*ms, cancel)
	stats, err := Run(ctx, items(ts...), Config{MaxConcurrency: 3}, rec.send)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Stop != StopCanceled {
		t.Fatalf("stop %q, want canceled", stats.Stop)
	}
	rows := rec.byIndex()
	// Items are due every 20 ms and none is answered, so the cap of 3 is full from 40 ms on.
	if len(rows) != stats.Sent || stats.Sent < 1 || stats.Sent > 3 {
		t.Fatalf("%d sends returned, stats say %d sent; want 3 (the cap) at most", len(rows), stats.Sent)
	}
	if stats.Sent+stats.NotSent != 50 {
		t.Fatalf("sent %d + not sent %d != 50", stats.Sent, stats.NotSent)
	}
	for _, r := range rows {
		if r.ctxErr == nil {
			t.Errorf("item %d returned without seeing the cancel", r.it.Index)
		}
	}
}

func TestWarmupFinishesFirst(t *testing.T) {
	trace := []Item{
		{Index: 100, Timestamp: 0, Warmup: true},
		{Index: 101, Timestamp: 5 * ms, Warmup: true},
		{Index: 0, Timestamp: 0},
		{Index: 1, Timestamp: 10 * ms},
	}
	var mu sync.Mutex
	var events []string
	send := func(_ context.Context, it Item, tm Timing) {
		mu.Lock()
		events = append(events, "start", map[bool]string{true: "warm", false: "measured"}[it.Warmup])
		mu.Unlock()
		time.Sleep(30 * ms)
		mu.Lock()
		events = append(events, "end", map[bool]string{true: "warm", false: "measured"}[it.Warmup])
		mu.Unlock()
	}
	stats, err := Run(context.Background(), trace, Config{Limit: 1}, send)
	if err != nil {
		t.Fatal(err)
	}
	if stats.WarmupSent != 2 || stats.Sent != 1 || stats.Selected != 1 {
		t.Fatalf("stats %+v, want 2 warmup sends and 1 measured (limit applies to measured items only)", stats)
	}
	firstMeasured, warmEnds := -1, 0
	for i := 0; i+1 < len(events); i += 2 {
		switch {
		case events[i+1] == "measured" && firstMeasured < 0:
			firstMeasured = i
		case events[i] == "end" && events[i+1] == "warm":
			if firstMeasured >= 0 {
				t.Fatalf("events %v: a warmup ended after the measured send started", events)
			}
			warmEnds++
		}
	}
	if warmEnds != 2 || firstMeasured < 0 {
		t.Fatalf("events %v, want both warmups finished, then the measured send", events)
	}
}

func TestRunRejectsBadInput(t *testing.T) {
	noop := func(context.Context, Item, Timing) {}
	if _, err := Run(context.Background(), items(0), Config{Speed: -1}, noop); err == nil {
		t.Error("negative speed accepted")
	}
	if _, err := Run(context.Background(), items(0), Config{}, nil); err == nil {
		t.Error("nil send accepted")
	}
	if s, err := Run(context.Background(), nil, Config{}, noop); err != nil || s.Selected != 0 || s.Stop != StopCompleted {
		t.Errorf("empty trace: %+v, %v", s, err)
	}
}

// TestDurationStillReleasesTurns: the next open-loop item lies beyond the deadline, but a
// session turn released by an answer before the deadline must still be sent.
func TestDurationStillReleasesTurns(t *testing.T) {
	trace := []Item{
		{Index: 0, Timestamp: 0, SessionID: "s", Turn: 0},
		{Index: 1, Timestamp: 10 * ms, SessionID: "s", Turn: 1},
		{Index: 2, Timestamp: 5000 * ms},
	}
	rec := &recorder{hold: sleepFor(20 * ms)}
	stats, err := Run(context.Background(), trace, Config{Duration: 300 * ms}, rec.send)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Stop != StopDuration || stats.Sent != 2 || stats.NotSent != 1 {
		t.Fatalf("stats %+v, want both turns sent and the late item not", stats)
	}
	if _, ok := rec.byIndex()[1]; !ok {
		t.Fatal("turn 1 was not sent")
	}
}

// TestDurationEndsEarlyWhenNothingIsDue: without sessions, nothing can become due before the
// deadline once the next item lies beyond it, so Run returns without waiting it out.
func TestDurationEndsEarlyWhenNothingIsDue(t *testing.T) {
	start := time.Now()
	stats, err := Run(context.Background(), items(0, time.Hour), Config{Duration: time.Minute}, (&recorder{}).send)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Stop != StopDuration || stats.Sent != 1 || stats.NotSent != 1 {
		t.Fatalf("stats %+v, want 1 sent and 1 not sent", stats)
	}
	if waited := time.Since(start); waited > 10*time.Second {
		t.Fatalf("Run waited %v for a deadline nothing could use", waited)
	}
}

func TestWarmupItems(t *testing.T) {
	trace := []Item{
		{Index: 2, Timestamp: 3 * time.Second},
		{Index: 0, Timestamp: time.Second, SessionID: "s"},
		{Index: 1, Timestamp: 2 * time.Second, SessionID: "s", Turn: 1},
	}
	byN := WarmupItems(trace, 2, 0)
	if len(byN) != 2 || byN[0].Index != 0 || byN[1].Index != 1 {
		t.Fatalf("first 2: %+v", byN)
	}
	for _, it := range byN {
		if !it.Warmup || it.SessionID != "" {
			t.Fatalf("warmup copy %+v is not marked or still in a session", it)
		}
	}
	if trace[1].Warmup || trace[1].SessionID != "s" {
		t.Fatal("WarmupItems changed its input")
	}
	if byD := WarmupItems(trace, 0, 1500*ms); len(byD) != 2 {
		t.Fatalf("first 1.5 s: %d items, want 2", len(byD))
	}
	if none := WarmupItems(trace, 0, 0); none != nil {
		t.Fatalf("no warmup asked, got %v", none)
	}
}
