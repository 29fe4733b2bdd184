package runner

import (
	"testing"
	"time"

	"github.com/llm-replay/replay/scheduler"
)

// The default opens a connection for each request of the schedule's densest 5 s (after the
// speed factor), bounded by half the client's limit; a given count is taken as is.
func TestPreconnectCount(t *testing.T) {
	var items []scheduler.Item
	for i := range 10 { // a burst of 10 within 9 ms, then one every 10 s
		items = append(items, scheduler.Item{Timestamp: time.Duration(i) * time.Millisecond})
	}
	for i := range 5 {
		items = append(items, scheduler.Item{Timestamp: time.Duration(i+1) * 10 * time.Second})
	}
	for _, c := range []struct {
		n, limit int
		speed    float64
		want     int
	}{
		{PreconnectAuto, 0, 1, 10},
		{PreconnectAuto, 8, 1, 4},
		{PreconnectAuto, 0, 4, 11}, // at 4x the first 10 s shrink to 2.5 s, into the window
		{0, 0, 1, 0},
		{3, 0, 1, 3},
	} {
		if got := preconnectCount(c.n, items, c.speed, c.limit); got != c.want {
			t.Errorf("preconnectCount(%d, speed %g, limit %d) = %d, want %d", c.n, c.speed, c.limit, got, c.want)
		}
	}
}
