package progress

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llm-replay/replay/scheduler"
)

// lateRun sends n requests all due at 0 through a client that holds one at a time, each
// answered after hold: request k leaves about k x hold late, so the scheduler's counters end
// with a lateness p99 of about (n-1) x hold.
func lateRun(t *testing.T, n int, hold time.Duration) *scheduler.Counters {
	t.Helper()
	c := &scheduler.Counters{}
	items := make([]scheduler.Item, n)
	for i := range items {
		items[i].Index = i
	}
	_, err := scheduler.Run(context.Background(), items, scheduler.Config{Speed: 1, ClientLimit: 1, Counters: c},
		func(context.Context, scheduler.Item, scheduler.Timing) { time.Sleep(hold) })
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestLatenessJudgedAtTheVerdictsLimit: the live line says "behind" only past the limit the
// verdict holds the send lateness p99 to (--max-lateness, 10 ms by default), and "ok" within
// it, even past the arrivals' stricter 1 ms mark; without a limit it judges nothing. On a
// terminal the word carries the bar's colour codes, red for behind and green for ok.
func TestLatenessJudgedAtTheVerdictsLimit(t *testing.T) {
	slight := lateRun(t, 3, 2*time.Millisecond) // p99 ~4 ms: over 1 ms, within 10 ms
	if p99 := time.Duration(slight.LatenessP99NS()); p99 < 2*time.Millisecond || p99 > 9*time.Millisecond {
		t.Skipf("this machine made lateness p99 %v, not the 2-9 ms the case needs", p99)
	}
	late := lateRun(t, 3, 15*time.Millisecond) // p99 ~30 ms
	cases := []struct {
		c      *scheduler.Counters
		limit  time.Duration
		colour bool
		want   string
		not    string
	}{
		{slight, 10 * time.Millisecond, false, " ok (limit 10ms)", "behind"},
		{slight, 10 * time.Millisecond, true, "[green]ok[reset] (limit 10ms)", "behind"},
		{late, 10 * time.Millisecond, false, " behind (limit 10ms)", " ok"},
		{late, 10 * time.Millisecond, true, "[red]behind[reset] (limit 10ms)", "ok"},
		{late, 100 * time.Millisecond, false, " ok (limit 100ms)", "behind"},
		{late, 0, false, "lateness p99 ", "limit"},
	}
	for _, tc := range cases {
		d := New(3, time.Second, tc.c, Plain)
		d.JudgeLateness(tc.limit)
		d.start = time.Now()
		got := d.line(tc.colour)
		if !strings.Contains(got, tc.want) || strings.Contains(got, tc.not) {
			t.Errorf("limit %v, colour %v: %q; want %q and no %q", tc.limit, tc.colour, got, tc.want, tc.not)
		}
	}
	d := New(3, time.Second, late, JSON)
	d.JudgeLateness(10 * time.Millisecond)
	d.start = time.Now()
	var l map[string]float64 // every field a number
	if err := json.Unmarshal([]byte(d.jsonLine()), &l); err != nil || l["lateness_limit_ms"] != 10 || l["lateness_p99_ms"] <= 10 {
		t.Errorf("JSON line %v, %v: want a p99 over its 10 ms limit", l, err)
	}
}

// TestDrainingSaysWhatItWaitsFor: once every request is sent, the line stops counting the
// elapsed time against the schedule's length and says how many requests are still in flight
// and how long the oldest has been out (the JSON line too); when they return, the last line
// gives the elapsed time again.
func TestDrainingSaysWhatItWaitsFor(t *testing.T) {
	c := &scheduler.Counters{}
	d := New(2, 20*time.Millisecond, c, Plain)
	var out syncBuffer
	d.Run(&out)
	release := make(chan struct{})
	var quick sync.WaitGroup
	quick.Add(1)
	items := []scheduler.Item{{Index: 0}, {Index: 1, Timestamp: 5 * time.Millisecond}}
	send := d.Track(func(_ context.Context, it scheduler.Item, _ scheduler.Timing) {
		if it.Index == 0 {
			<-release // the slow request, still out when the schedule is done
			return
		}
		quick.Done()
	})
	ran := make(chan error, 1)
	go func() {
		_, err := scheduler.Run(context.Background(), items, scheduler.Config{Speed: 1, Counters: c}, send)
		ran <- err
	}()
	quick.Wait()
	for c.Completed() < 1 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(1100 * time.Millisecond) // the oldest is over a second old
	line := d.line(false)
	if !strings.Contains(line, "draining: 1 requests in flight, oldest 1s") || strings.Contains(line, "elapsed") {
		t.Errorf("after the schedule: %q; want the requests in flight and the oldest's age", line)
	}
	var l map[string]float64 // every field a number
	if err := json.Unmarshal([]byte(d.jsonLine()), &l); err != nil || l["oldest_in_flight_s"] < 1 {
		t.Errorf("JSON line %v, %v: want the oldest in flight's age", l, err)
	}
	close(release)
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	if line := d.line(false); strings.Contains(line, "draining") || !strings.Contains(line, "elapsed") {
		t.Errorf("after the last answer: %q; want the elapsed time, no draining", line)
	}
	d.Finish()
}
