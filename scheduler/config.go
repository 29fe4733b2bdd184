package scheduler

import (
	"fmt"
	"math"
	"time"
)

// Config says which part of the trace to replay and how.
type Config struct {
	// Speed divides every trace offset: 2 replays twice as fast. 0 means 1.
	Speed float64
	// MaxConcurrency caps requests in flight; 0 means no cap. Items due while the cap is full
	// wait for a slot after their scheduled time, and the wait is recorded (Timing.QueueWaitNS).
	MaxConcurrency int
	// ClientLimit is the most requests the client itself can hold in flight (its file
	// descriptors and ports; see the runner); 0 means no limit. At the limit the dispatcher
	// holds the next send until one returns, rather than let it fail on this machine's limit,
	// and records the hold as client backlog (Timing.ClientBacklogNS), apart from the
	// MaxConcurrency queue: a backlog means the run measures the load generator.
	ClientLimit int
	// From and To select the trace window [From, To) in trace time (before speed scaling),
	// measured from the earliest measured item's timestamp. To 0 means to the end. The first
	// selected item is re-based to offset 0.
	From, To time.Duration
	// Limit keeps only the first Limit items of the window; 0 means all.
	Limit int
	// Shard and Shards split one replay across Shards processes (or machines) that start
	// together: this one sends only its share of the window, Shard in [0, Shards). All shards
	// keep the same time base (offsets from the window's first item), and a session stays on
	// one shard so its turns can gate each other. Shards 0 or 1 means no split.
	Shard, Shards int
	// StartAt, when set, is the measured phase's origin instead of the moment it begins: every
	// shard of a replay schedules from the same instant, and one started after it sends what
	// is already due at once, its lateness recorded.
	StartAt time.Time
	// Duration stops dispatching after this much wall time of the measured phase; 0 means no
	// limit. Items not sent by then are counted in Stats.NotSent, and in-flight requests are
	// allowed to finish.
	Duration time.Duration
	// Counters, when set, is updated live for a progress display; Run also fills Stats from
	// it, so give each Run a fresh one.
	Counters *Counters

	// tune holds dispatch knobs that benchmarks compare; the zero value means the defaults.
	tune tuning
}

// tuning holds the dispatch knobs compared in BenchmarkLateness (see BENCHMARKS.md); the zero
// value is the default, which measured best.
type tuning struct {
	// coarse is how long before the due time the dispatcher stops waiting on a runtime timer
	// (interruptible by session completions and cancellation) and sleeps precisely.
	coarse time.Duration
	// spin is how long before the due time the dispatcher stops sleeping and spins on the
	// clock.
	spin time.Duration
	// timerOnly skips the precise sleep: a runtime timer, then a spin of defaultTimerSpin
	// (sleep until 1.5 ms before, then spin: the first design, kept to compare against).
	timerOnly bool
	// lockThread wires the dispatcher to its own OS thread with a 1 ns timer slack.
	lockThread bool
	// goPerSend starts one goroutine per send instead of handing items to parked workers.
	goPerSend bool
	// noYield keeps the dispatcher running after a hand-off instead of yielding its
	// processor to the senders it just woke.
	noYield bool
	// onWake, when set, sees each batch's due time and the time the dispatcher woke for it,
	// so benchmarks can split lateness between waking and handing off.
	onWake func(due, now int64)
}

// Defaults, from the benchmarks. A runtime timer overshoots by 0.3-1 ms on the 2-core machines
// this was measured on, so it only brings the dispatcher to within coarse of the due time; nanosleep
// wakes within the kernel's 50 µs timer slack, and the spin absorbs that. Spinning for longer
// burns a core that, on a 2-core machine, the senders need.
const (
	defaultCoarse    = 2 * time.Millisecond
	defaultSpin      = 100 * time.Microsecond
	defaultTimerSpin = 1200 * time.Microsecond
)

func (t tuning) withDefaults() tuning {
	if t.coarse == 0 {
		t.coarse = defaultCoarse
	}
	if !preciseSleepAvailable {
		t.timerOnly = true
	}
	if t.spin == 0 {
		t.spin = defaultSpin
		if t.timerOnly {
			t.spin = defaultTimerSpin
		}
	}
	return t
}

func (c Config) validate() error {
	switch {
	case math.IsNaN(c.Speed) || math.IsInf(c.Speed, 0) || c.Speed < 0:
		return fmt.Errorf("scheduler: speed %v: must be a positive number", c.Speed)
	case c.ClientLimit < 0:
		return fmt.Errorf("scheduler: client limit %d: must be 0 (none) or positive", c.ClientLimit)
	case c.MaxConcurrency < 0:
		return fmt.Errorf("scheduler: max concurrency %d: must be 0 (no cap) or positive", c.MaxConcurrency)
	case c.From < 0:
		return fmt.Errorf("scheduler: from %v: must not be negative", c.From)
	case c.To < 0:
		return fmt.Errorf("scheduler: to %v: must not be negative", c.To)
	case c.To != 0 && c.To <= c.From:
		return fmt.Errorf("scheduler: window from %v to %v is empty: to must be after from", c.From, c.To)
	case c.Limit < 0:
		return fmt.Errorf("scheduler: limit %d: must be 0 (all) or positive", c.Limit)
	case c.Shards < 0 || c.Shard < 0 || (c.Shards > 1 && c.Shard >= c.Shards) || (c.Shards <= 1 && c.Shard > 0):
		return fmt.Errorf("scheduler: shard %d of %d: want 0 <= shard < shards", c.Shard, c.Shards)
	case c.Duration < 0:
		return fmt.Errorf("scheduler: duration %v: must not be negative", c.Duration)
	}
	return nil
}

func (c Config) speed() float64 {
	if c.Speed == 0 {
		return 1
	}
	return c.Speed
}
