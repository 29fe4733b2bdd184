package scheduler

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Stop says why a run's measured phase stopped dispatching.
type Stop string

// The reasons a run stops.
const (
	StopCompleted Stop = "completed" // every selected item was sent
	StopDuration  Stop = "duration"  // Config.Duration elapsed first
	StopCanceled  Stop = "canceled"  // the context was canceled (SIGINT)
)

// Stats sums up a run once every send has returned.
type Stats struct {
	// Selected counts the measured items in the window; Selected == Sent + NotSent.
	Selected int
	// Sent counts measured items handed to the SendFunc.
	Sent int
	// NotSent counts measured items that were never sent, because the run stopped first.
	NotSent int
	// WarmupSent counts warmup items sent before the measured phase.
	WarmupSent int
	// MaxLatenessNS is the largest dispatch lateness of the measured phase, without queue wait.
	MaxLatenessNS int64
	// MaxQueueWaitNS is the longest wait for a concurrency slot in the measured phase.
	MaxQueueWaitNS int64
	// Held counts measured sends delayed by the client's own limit; MaxBacklogNS is the
	// longest such delay, and MaxInFlight the most requests in flight at once.
	Held         int
	MaxBacklogNS int64
	MaxInFlight  int
	// Elapsed is the measured phase's wall time, until the last send returned.
	Elapsed time.Duration
	// Stop says why dispatching ended.
	Stop Stop
}

// Run replays items open loop and returns when every started send has returned.
//
// Items marked Warmup are sent first, as their own phase paced at their trace rate (scaled by
// Speed, with their own Clock), and Run waits for them all to finish. Then the measured
// phase selects the window of the other items (From, To, Limit), starts a new Clock at 0 and
// releases each batch at its due offset (see Pacer): the dispatcher sleeps until shortly
// before the due time, spins on the monotonic clock for the last stretch, and hands the batch
// to parked sender goroutines; it never waits on a response. Under MaxConcurrency, a sender
// waits for a slot after the scheduled time and records the wait.
//
// Run may reorder items (the measured phase sorts them by arrival in place).
//
// When ctx is canceled Run stops dispatching; in-flight sends see the canceled ctx, and Run
// waits for them to return so their results can be written. When Duration elapses Run stops
// dispatching and lets in-flight sends finish. Neither is an error: Stats.Stop says which
// happened. Errors are for bad configuration only.
func Run(ctx context.Context, items []Item, cfg Config, send SendFunc) (Stats, error) {
	if send == nil {
		return Stats{}, errors.New("scheduler: no send function")
	}
	warm, measured := splitWarmup(items)
	warmPacer, err := newTracePacer(warm, Config{Speed: cfg.Speed})
	if err != nil {
		return Stats{}, fmt.Errorf("warmup: %w", err)
	}
	pacer, err := newTracePacer(measured, cfg)
	if err != nil {
		return Stats{}, err
	}
	counters := cfg.Counters
	if counters == nil {
		counters = &Counters{}
	}

	r := newRunner(ctx, cfg, send)
	defer r.close()

	stats := Stats{Selected: pacer.Remaining()}
	if warmPacer.Remaining() > 0 {
		warmCounters := &Counters{}
		stop, _ := r.phase(warmPacer, 0, warmCounters)
		stats.WarmupSent = int(warmCounters.Sent())
		if stop == StopCanceled {
			counters.notSent.Add(int64(pacer.Remaining()))
			stats.NotSent, stats.Stop = pacer.Remaining(), StopCanceled
			return stats, nil
		}
	}
	r.startAt = cfg.StartAt
	stats.Stop, stats.Elapsed = r.phase(pacer, cfg.Duration, counters)
	stats.Sent = int(counters.Sent())
	stats.NotSent = int(counters.NotSent())
	stats.MaxLatenessNS = counters.MaxLatenessNS()
	stats.MaxQueueWaitNS = counters.MaxQueueWaitNS()
	stats.Held = int(counters.Held())
	stats.MaxBacklogNS = counters.MaxBacklogNS()
	stats.MaxInFlight = int(counters.MaxInFlight())
	return stats, nil
}

// splitWarmup splits items into the warmup's and the measured phase's, which the pacers sort in
// place. Without warmup items the measured phase's are items itself, reordered: a day's
// schedule is millions of items, and a copy of them would be held for the whole run.
func splitWarmup(items []Item) (warm, measured []Item) {
	n := 0
	for i := range items {
		if items[i].Warmup {
			n++
		}
	}
	if n == 0 {
		return nil, items
	}
	warm, measured = make([]Item, 0, n), make([]Item, 0, len(items)-n)
	for _, it := range items {
		if it.Warmup {
			warm = append(warm, it)
		} else {
			measured = append(measured, it)
		}
	}
	return warm, measured
}

// runner holds what the phases of one Run share: the senders and the concurrency slots.
type runner struct {
	ctx  context.Context
	send SendFunc
	tune tuning
	// startAt is the next phase's origin when set (the measured phase under Config.StartAt).
	startAt time.Time
	// sem holds one token per request in flight under MaxConcurrency; nil without a cap.
	sem chan struct{}
	// clientSlots holds one token per request the client holds (ClientLimit); nil without.
	clientSlots chan struct{}
	// jobs hands due items to parked workers; quit retires the workers at the end of Run.
	jobs     chan job
	quit     chan struct{}
	workers  sync.WaitGroup
	inFlight sync.WaitGroup
}

// job is one due item on its way to a sender; passing it by value keeps the hand-off free of
// allocations.
type job struct {
	it      Item
	sched   int64
	backlog int64
	ph      *phase
}

// phase is one paced pass (warmup or measured) with its own clock.
type phase struct {
	pacer    Pacer
	clock    *Clock
	counters *Counters
	// done carries session turns' completions back to the dispatcher; nil without sessions.
	// Its buffer holds every session item, so a sender never blocks on it.
	done chan completion
	// heldUntil is when the dispatcher last got a client slot after waiting for one: items
	// due before it were late by the hold (see clientSlot).
	heldUntil int64
}

type completion struct {
	it Item
	at int64
}

func newRunner(ctx context.Context, cfg Config, send SendFunc) *runner {
	r := &runner{ctx: ctx, send: send, tune: cfg.tune.withDefaults(), jobs: make(chan job), quit: make(chan struct{})}
	if cfg.MaxConcurrency > 0 {
		r.sem = make(chan struct{}, cfg.MaxConcurrency)
	}
	if cfg.ClientLimit > 0 {
		r.clientSlots = make(chan struct{}, cfg.ClientLimit)
	}
	return r
}

// close retires the parked workers once every send has returned.
func (r *runner) close() {
	r.inFlight.Wait()
	close(r.quit)
	r.workers.Wait()
}

// phase dispatches every item of p, then waits for the sends to return.
func (r *runner) phase(p *tracePacer, limit time.Duration, counters *Counters) (Stop, time.Duration) {
	ph := &phase{pacer: p, counters: counters}
	sessionItems := 0
	for i := range p.items {
		if p.items[i].SessionID != "" {
			sessionItems++
		}
	}
	if sessionItems > 0 {
		ph.done = make(chan completion, sessionItems)
	}
	ph.clock = NewClock()
	if !r.startAt.IsZero() {
		ph.clock = NewClockAt(r.startAt)
	}
	stop := r.dispatch(ph, limit)
	counters.notSent.Add(int64(p.Remaining()))
	r.inFlight.Wait()
	return stop, time.Duration(ph.clock.Now())
}
