package scheduler

import (
	"fmt"
	"testing"
	"time"
)

// FuzzPacer builds a pacer from arbitrary items and settings and checks, on a virtual clock,
// that it never panics or loops, releases every selected item exactly once, and never goes
// back in time. Each 4 bytes of data make an item: a 16-bit timestamp (times scale), a
// session (none or one of three) and a turn; service is how long every request takes.
func FuzzPacer(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 10, 1, 0, 0, 20, 1, 1, 0, 20, 0, 0}, int64(ms), 1.0, int64(0), int64(0), 0, int64(5*ms))
	f.Add([]byte{0, 5, 2, 3, 0, 5, 2, 1, 0, 1, 2, 2, 0, 9, 3, 0}, int64(time.Second), 0.5, int64(time.Second), int64(8*time.Second), 2, int64(time.Hour))
	f.Fuzz(func(t *testing.T, data []byte, scale int64, speed float64, from, to int64, limit int, service int64) {
		if len(data) > 4000 {
			return
		}
		var in []Item
		for i := 0; i+4 <= len(data); i += 4 {
			it := Item{Index: i / 4, Timestamp: time.Duration(int64(data[i])<<8|int64(data[i+1])) * time.Duration(scale), Turn: int(data[i+3] % 5)}
			if s := data[i+2] % 4; s > 0 {
				it.SessionID = fmt.Sprint("s", s)
			}
			in = append(in, it)
		}
		p, err := NewPacer(in, Config{Speed: speed, From: time.Duration(from), To: time.Duration(to), Limit: limit})
		if err != nil {
			return
		}
		selected := p.Remaining()
		if selected > len(in) || (limit > 0 && selected > limit) {
			t.Fatalf("selected %d of %d items with limit %d", selected, len(in), limit)
		}
		due, _ := simulate(t, p, func(Item) time.Duration { return time.Duration(max(0, service%int64(time.Hour))) })
		if len(due) != selected {
			t.Fatalf("released %d items, selected %d", len(due), selected)
		}
	})
}
