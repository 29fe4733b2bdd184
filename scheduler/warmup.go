package scheduler

import (
	"cmp"
	"slices"
	"time"
)

// WarmupItems picks throwaway requests of the trace's own shape: copies of the first n items
// by timestamp, or, when n is 0, of those within the first d of trace time. The copies are
// marked Warmup and lose their SessionID, so they are paced open loop and never gate a
// measured turn. Payload is shared with the originals: a caller that does not want the warmup
// to fill the endpoint's prefix cache with the measured prompts should give them new ones.
func WarmupItems(items []Item, n int, d time.Duration) []Item {
	if n <= 0 && d <= 0 || len(items) == 0 {
		return nil
	}
	sorted := slices.Clone(items)
	slices.SortStableFunc(sorted, func(a, b Item) int { return cmp.Compare(a.Timestamp, b.Timestamp) })
	var out []Item
	for _, it := range sorted {
		if it.Warmup {
			continue
		}
		if n > 0 && len(out) == n || n <= 0 && it.Timestamp-sorted[0].Timestamp >= d {
			break
		}
		it.Warmup, it.SessionID, it.Turn = true, "", 0
		out = append(out, it)
	}
	return out
}
