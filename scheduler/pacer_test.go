package scheduler

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

const ms = time.Millisecond

// simulate drives p on a virtual clock: each popped item completes service(it) after its due
// time, and completions are fed back through Done in time order. It returns every item's due
// offset by Index, and the batches in pop order.
func simulate(t *testing.T, p Pacer, service func(Item) time.Duration) (map[int]time.Duration, [][]int) {
	t.Helper()
	type pending struct {
		it Item
		at time.Duration
	}
	due := map[int]time.Duration{}
	var batches [][]int
	var inflight []pending
	var last time.Duration
	for steps := 0; ; steps++ {
		if steps > 1e6 {
			t.Fatal("simulation does not end")
		}
		at, ok := p.Next()
		slices.SortFunc(inflight, func(a, b pending) int { return int(a.at - b.at) })
		if ok && (len(inflight) == 0 || at <= inflight[0].at) {
			if at < last {
				t.Fatalf("batch due at %v after one at %v: the schedule went back in time", at, last)
			}
			last = at
			var ids []int
			for _, it := range p.Pop(nil) {
				if _, dup := due[it.Index]; dup {
					t.Fatalf("item %d popped twice", it.Index)
				}
				due[it.Index] = at
				ids = append(ids, it.Index)
				inflight = append(inflight, pending{it, at + service(it)})
			}
			if len(ids) == 0 {
				t.Fatalf("Next reported a batch at %v but Pop returned none", at)
			}
			batches = append(batches, ids)
			continue
		}
		if len(inflight) == 0 {
			break
		}
		c := inflight[0]
		inflight = inflight[1:]
		p.Done(c.it, c.at)
	}
	if p.Remaining() != 0 {
		t.Fatalf("%d items never released", p.Remaining())
	}
	return due, batches
}

func items(ts ...time.Duration) []Item {
	out := make([]Item, len(ts))
	for i, x := range ts {
		out[i] = Item{Index: i, Timestamp: x}
	}
	return out
}

func instant(Item) time.Duration { return 0 }

func TestPacerSpeed(t *testing.T) {
	trace := items(1000*ms, 1100*ms, 1350*ms, 3000*ms)
	for _, tc := range []struct {
		speed float64
		want  []time.Duration
	}{
		{0.5, []time.Duration{0, 200 * ms, 700 * ms, 4000 * ms}},
		{1, []time.Duration{0, 100 * ms, 350 * ms, 2000 * ms}},
		{2, []time.Duration{0, 50 * ms, 175 * ms, 1000 * ms}},
		{0, []time.Duration{0, 100 * ms, 350 * ms, 2000 * ms}}, // 0 means 1
	} {
		p, err := NewPacer(trace, Config{Speed: tc.speed})
		if err != nil {
			t.Fatal(err)
		}
		due, _ := simulate(t, p, instant)
		for i, want := range tc.want {
			if due[i] != want {
				t.Errorf("speed %v: item %d due at %v, want %v", tc.speed, i, due[i], want)
			}
		}
	}
}

func TestPacerEqualTimestampsFormOneBatch(t *testing.T) {
	// Out of order on purpose: the pacer sorts, and keeps input order among equal timestamps.
	trace := []Item{
		{Index: 4, Timestamp: 20 * ms},
		{Index: 1, Timestamp: 10 * ms},
		{Index: 0, Timestamp: 0},
		{Index: 2, Timestamp: 10 * ms},
		{Index: 3, Timestamp: 10 * ms},
	}
	p, err := NewPacer(trace, Config{Speed: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, batches := simulate(t, p, instant)
	want := [][]int{{0}, {1, 2, 3}, {4}}
	if !slices.EqualFunc(batches, want, slices.Equal) {
		t.Fatalf("batches %v, want %v", batches, want)
	}
}

func TestPacerWindow(t *testing.T) {
	// Offsets from the first timestamp (5 s): 0, 1, 2, 3, 4, 5 s.
	trace := items(5000*ms, 6000*ms, 7000*ms, 8000*ms, 9000*ms, 10000*ms)
	for _, tc := range []struct {
		name string
		cfg  Config
		want map[int]time.Duration
	}{
		{"from", Config{From: 2000 * ms}, map[int]time.Duration{2: 0, 3: 1000 * ms, 4: 2000 * ms, 5: 3000 * ms}},
		{"to excludes its end", Config{To: 2000 * ms}, map[int]time.Duration{0: 0, 1: 1000 * ms}},
		{"from-to", Config{From: 1500 * ms, To: 4000 * ms}, map[int]time.Duration{2: 0, 3: 1000 * ms}},
		{"limit", Config{Limit: 2}, map[int]time.Duration{0: 0, 1: 1000 * ms}},
		{"from-limit at speed 2", Config{From: 3000 * ms, Limit: 2, Speed: 2}, map[int]time.Duration{3: 0, 4: 500 * ms}},
		{"empty window", Config{From: 10 * time.Hour}, map[int]time.Duration{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewPacer(trace, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if p.Remaining() != len(tc.want) {
				t.Fatalf("selected %d items, want %d", p.Remaining(), len(tc.want))
			}
			due, _ := simulate(t, p, instant)
			if len(due) != len(tc.want) {
				t.Fatalf("released %v, want %v", due, tc.want)
			}
			for i, want := range tc.want {
				if got, ok := due[i]; !ok || got != want {
					t.Errorf("item %d due at %v (released %v), want %v", i, got, ok, want)
				}
			}
		})
	}
}

func TestPacerSessions(t *testing.T) {
	// Session "a": turns at 0, 1 s and 3 s of trace time (given out of order); "b" is one
	// open-loop request at 1.5 s that must not wait for anything.
	trace := []Item{
		{Index: 2, Timestamp: 3000 * ms, SessionID: "a", Turn: 2},
		{Index: 0, Timestamp: 0, SessionID: "a", Turn: 0},
		{Index: 1, Timestamp: 1000 * ms, SessionID: "a", Turn: 1},
		{Index: 3, Timestamp: 1500 * ms},
	}
	for _, tc := range []struct {
		name    string
		speed   float64
		service time.Duration
		want    []time.Duration
	}{
		// Slow answers: each turn waits for the previous answer, then the trace's gap.
		// turn 1: max(1 s, 0+2 s+1 s) = 3 s; turn 2: max(3 s, 3+2 s+2 s) = 7 s.
		{"slow endpoint", 1, 2000 * ms, []time.Duration{0, 3000 * ms, 7000 * ms, 1500 * ms}},
		// Fast answers: the turn comes its gap after the answer: 0.1+1 = 1.1 s, 1.2+2 = 3.2 s.
		{"fast endpoint", 1, 100 * ms, []time.Duration{0, 1100 * ms, 3200 * ms, 1500 * ms}},
		// Speed 2 halves the gaps: turn 1 at 2+0.5 = 2.5 s, turn 2 at 4.5+1 = 5.5 s.
		{"speed 2", 2, 2000 * ms, []time.Duration{0, 2500 * ms, 5500 * ms, 750 * ms}},
		// An instant answer leaves each turn exactly at its own offset.
		{"instant", 1, 0, []time.Duration{0, 1000 * ms, 3000 * ms, 1500 * ms}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewPacer(trace, Config{Speed: tc.speed})
			if err != nil {
				t.Fatal(err)
			}
			due, _ := simulate(t, p, func(Item) time.Duration { return tc.service })
			for i, want := range tc.want {
				if due[i] != want {
					t.Errorf("item %d due at %v, want %v", i, due[i], want)
				}
			}
		})
	}
}

func TestPacerSessionGatedUntilDone(t *testing.T) {
	trace := []Item{
		{Index: 0, Timestamp: 0, SessionID: "s", Turn: 0},
		{Index: 1, Timestamp: 10 * ms, SessionID: "s", Turn: 1},
	}
	p, err := NewPacer(trace, Config{})
	if err != nil {
		t.Fatal(err)
	}
	first := p.Pop(nil)
	if len(first) != 1 || first[0].Index != 0 {
		t.Fatalf("first batch %v, want turn 0", first)
	}
	if at, ok := p.Next(); ok {
		t.Fatalf("turn 1 released at %v before turn 0 completed", at)
	}
	if p.Remaining() != 1 {
		t.Fatalf("remaining %d, want 1 gated turn", p.Remaining())
	}
	p.Done(Item{Index: 99}, time.Second) // not an item of this pacer: ignored
	if _, ok := p.Next(); ok {
		t.Fatal("a foreign Done released the turn")
	}
	p.Done(first[0], 50*ms)
	p.Done(first[0], 500*ms) // repeated: ignored
	if at, ok := p.Next(); !ok || at != 60*ms {
		t.Fatalf("turn 1 due at %v (%v), want 60ms", at, ok)
	}
}

func TestPacerWindowCutsSession(t *testing.T) {
	// Turn 0 lies before the window, so turn 1 is the session's first and leaves open loop;
	// turn 2 still waits for it.
	trace := []Item{
		{Index: 0, Timestamp: 0, SessionID: "s", Turn: 0},
		{Index: 1, Timestamp: 2000 * ms, SessionID: "s", Turn: 1},
		{Index: 2, Timestamp: 3000 * ms, SessionID: "s", Turn: 2},
	}
	p, err := NewPacer(trace, Config{From: 1000 * ms})
	if err != nil {
		t.Fatal(err)
	}
	due, _ := simulate(t, p, func(Item) time.Duration { return 5000 * ms })
	if due[1] != 0 || due[2] != 6000*ms {
		t.Fatalf("due %v, want turn 1 at 0 and turn 2 at 5 s + 1 s", due)
	}
}

func TestPacerRejectsBadConfig(t *testing.T) {
	for _, cfg := range []Config{
		{Speed: -1},
		{MaxConcurrency: -2},
		{From: -ms},
		{From: 2 * ms, To: ms},
		{Limit: -1},
		{Duration: -ms},
	} {
		if _, err := NewPacer(items(0), cfg); err == nil {
			t.Errorf("config %+v accepted", cfg)
		}
	}
	if _, err := NewPacer(items(0, time.Hour), Config{Speed: 1e-300}); err == nil {
		t.Error("an offset beyond the schedulable range was accepted")
	}
}

func TestPacerShards(t *testing.T) {
	var trace []Item
	for i := range 30 {
		it := Item{Index: i, Timestamp: time.Duration(1000+i*10) * ms}
		if i%3 == 0 {
			it.SessionID, it.Turn = fmt.Sprint("s", i%4), i
		}
		trace = append(trace, it)
	}
	whole, err := NewPacer(trace, Config{From: 20 * ms})
	if err != nil {
		t.Fatal(err)
	}
	wholeDue, _ := simulate(t, whole, instant)
	seen := map[int]int{}
	sessionShard := map[string]int{}
	for k := range 3 {
		p, err := NewPacer(trace, Config{From: 20 * ms, Shard: k, Shards: 3})
		if err != nil {
			t.Fatal(err)
		}
		due, _ := simulate(t, p, instant)
		for idx, at := range due {
			seen[idx]++
			if at != wholeDue[idx] {
				t.Errorf("shard %d: item %d due at %v, unsharded at %v: shards must share a time base", k, idx, at, wholeDue[idx])
			}
			if id := trace[idx].SessionID; id != "" {
				if other, ok := sessionShard[id]; ok && other != k {
					t.Errorf("session %s split over shards %d and %d", id, other, k)
				}
				sessionShard[id] = k
			}
		}
	}
	if len(seen) != len(wholeDue) {
		t.Fatalf("shards cover %d items, the window has %d", len(seen), len(wholeDue))
	}
	for idx, n := range seen {
		if n != 1 {
			t.Errorf("item %d sent by %d shards", idx, n)
		}
	}
	for _, cfg := range []Config{{Shard: 3, Shards: 3}, {Shard: -1, Shards: 2}, {Shards: -1}, {Shard: 1}} {
		if _, err := NewPacer(trace, cfg); err == nil {
			t.Errorf("shard config %+v accepted", cfg)
		}
	}
}
