package scheduler

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"time"
)

// Pacer decides when each item is due, in offsets from the start of the run. It knows nothing
// of clocks or goroutines: Run drives it from one goroutine against a monotonic clock, and the
// tests drive it against a virtual one. Methods are not safe for concurrent use.
//
// The schedule: an item's own offset is (timestamp - first selected timestamp) / speed, and
// items with equal offsets form one batch that leaves together. A session's first selected
// turn is open loop like any other item. Turn n+1 of a session is released only when turn n
// is reported Done, and is then due at
//
//	max(own offset, done(n) + (timestamp(n+1) - timestamp(n)) / speed)
//
// so the user's think time from the trace is kept after the answer actually arrived, and a
// slow endpoint delays a conversation the way it would delay a real user.
type Pacer interface {
	// Next reports the offset at which the next batch is due. ok is false when no batch is
	// known: every item was popped (Remaining is 0), or the rest wait for a turn to complete.
	Next() (at time.Duration, ok bool)
	// Pop removes the batch Next reports, every item due at that offset, and appends it to buf.
	Pop(buf []Item) []Item
	// Done reports that it (an item popped from this pacer) completed at offset at, which
	// releases its session's next turn. Other calls are ignored.
	Done(it Item, at time.Duration)
	// Remaining counts the items not yet popped, including turns still gated.
	Remaining() int
}

// tracePacer is the Pacer over a trace window.
type tracePacer struct {
	items []Item          // selected items in timestamp order; items[i].seq == i
	due   []time.Duration // each item's own offset
	gap   []time.Duration // for a gated turn: the scaled trace gap after the previous turn
	next  []int           // the session's next turn, or -1
	// done marks items whose completion was already applied, so a repeated Done is ignored.
	done []bool
	// open lists the items that are not gated, in due order; cursor is the next to pop.
	open   []int
	cursor int
	// released holds gated turns whose previous turn completed, by due time.
	released dueHeap
	popped   int
}

// NewPacer selects cfg's window of items (From, To, Limit, then Shard), scales it by
// cfg.Speed and links sessions. The items are copied; their order does not matter.
func NewPacer(items []Item, cfg Config) (Pacer, error) {
	return newTracePacer(slices.Clone(items), cfg)
}

// Share is the items a run with cfg sends, in schedule order: cfg's window (From, To, Limit),
// then its shard's share; what NewPacer paces. A shard's runner uses it to know which of the
// window's requests are its own before they are due.
func Share(items []Item, cfg Config) ([]Item, error) {
	p, err := newTracePacer(slices.Clone(items), cfg)
	if err != nil {
		return nil, err
	}
	return p.items, nil
}

// newTracePacer is NewPacer on a slice the pacer may own and reorder.
func newTracePacer(sorted []Item, cfg Config) (*tracePacer, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	speed := cfg.speed()
	slices.SortStableFunc(sorted, func(a, b Item) int { return cmp.Compare(a.Timestamp, b.Timestamp) })

	// Filter in place: the write index never passes the read index.
	sel := sorted[:0]
	var origin time.Duration
	if len(sorted) > 0 {
		origin = sorted[0].Timestamp
	}
	for i := range sorted {
		off := sorted[i].Timestamp - origin
		if off < cfg.From || (cfg.To != 0 && off >= cfg.To) {
			continue
		}
		if cfg.Limit > 0 && len(sel) == cfg.Limit {
			break
		}
		sel = append(sel, sorted[i])
	}
	var base time.Duration
	if len(sel) > 0 {
		base = sel[0].Timestamp
	}
	if cfg.Shards > 1 {
		sel = shard(sel, cfg.Shard, cfg.Shards)
	}
	n := len(sel)
	p := &tracePacer{
		items: sel,
		due:   make([]time.Duration, n),
		gap:   make([]time.Duration, n),
		next:  make([]int, n),
		done:  make([]bool, n),
	}
	for i := range sel {
		sel[i].seq = i
		p.next[i] = -1
		d, err := scale(sel[i].Timestamp-base, speed)
		if err != nil {
			return nil, fmt.Errorf("scheduler: item %d (timestamp %v): %w", sel[i].Index, sel[i].Timestamp, err)
		}
		p.due[i] = d
	}

	// Link each session's turns in turn order; the first selected turn stays open loop.
	gated := make([]bool, n)
	sessions := map[string][]int{}
	for i := range sel {
		if id := sel[i].SessionID; id != "" {
			sessions[id] = append(sessions[id], i)
		}
	}
	for _, turns := range sessions {
		slices.SortStableFunc(turns, func(a, b int) int { return cmp.Compare(sel[a].Turn, sel[b].Turn) })
		for k := 1; k < len(turns); k++ {
			prev, cur := turns[k-1], turns[k]
			p.next[prev] = cur
			gated[cur] = true
			// A trace whose later turn is stamped earlier gets no think time, not a negative one.
			p.gap[cur] = max(0, p.due[cur]-p.due[prev])
		}
	}
	for i := range sel {
		if !gated[i] {
			p.open = append(p.open, i)
		}
	}
	return p, nil
}

// shard keeps this shard's share of the window, in place: a session goes by a hash of its
// ID, so all its turns land on one shard; other items go round robin by position.
func shard(sel []Item, k, n int) []Item {
	out := sel[:0]
	for i, it := range sel {
		owner := i % n
		if it.SessionID != "" {
			h := fnv.New64a()
			h.Write([]byte(it.SessionID))
			owner = int(h.Sum64() % uint64(n))
		}
		if owner == k {
			out = append(out, it)
		}
	}
	return out
}

// scale converts a trace offset to a schedule offset at the given speed.
func scale(off time.Duration, speed float64) (time.Duration, error) {
	f := math.Round(float64(off) / speed)
	if f > math.MaxInt64/2 {
		return 0, fmt.Errorf("offset %v at speed %v is beyond the schedulable range", off, speed)
	}
	return time.Duration(f), nil
}

func (p *tracePacer) Next() (time.Duration, bool) {
	at, ok := time.Duration(0), false
	if p.cursor < len(p.open) {
		at, ok = p.due[p.open[p.cursor]], true
	}
	if len(p.released) > 0 && (!ok || p.released[0].at < at) {
		at, ok = p.released[0].at, true
	}
	return at, ok
}

func (p *tracePacer) Pop(buf []Item) []Item {
	at, ok := p.Next()
	if !ok {
		return buf
	}
	for p.cursor < len(p.open) && p.due[p.open[p.cursor]] == at {
		buf = append(buf, p.items[p.open[p.cursor]])
		p.cursor++
		p.popped++
	}
	for len(p.released) > 0 && p.released[0].at == at {
		buf = append(buf, p.items[p.released.pop().seq])
		p.popped++
	}
	return buf
}

func (p *tracePacer) Done(it Item, at time.Duration) {
	i := it.seq
	if i < 0 || i >= len(p.items) || p.done[i] || p.items[i].Index != it.Index {
		return
	}
	p.done[i] = true
	if n := p.next[i]; n >= 0 {
		p.released.push(dueEntry{at: max(p.due[n], at+p.gap[n]), seq: n})
	}
}

func (p *tracePacer) Remaining() int { return len(p.items) - p.popped }

// dueEntry is a released turn waiting in dueHeap.
type dueEntry struct {
	at  time.Duration
	seq int
}

// dueHeap is a min-heap by (at, seq). It is written out rather than using container/heap so
// pushing and popping do not box entries on the dispatch path.
type dueHeap []dueEntry

func (h dueHeap) less(i, j int) bool {
	return h[i].at < h[j].at || (h[i].at == h[j].at && h[i].seq < h[j].seq)
}

func (h *dueHeap) push(e dueEntry) {
	*h = append(*h, e)
	s := *h
	for i := len(s) - 1; i > 0; {
		parent := (i - 1) / 2
		if !s.less(i, parent) {
			break
		}
		s[i], s[parent] = s[parent], s[i]
		i = parent
	}
}

func (h *dueHeap) pop() dueEntry {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(s) && s.less(l, m) {
			m = l
		}
		if r < len(s) && s.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}
