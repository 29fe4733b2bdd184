package scheduler

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
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
// When ctx is canceled Run stops dispatching; in-flight sends see the canceled ctx, and Run
// waits for them to return so their results can be written. When Duration elapses Run stops
// dispatching and lets in-flight sends finish. Neither is an error: Stats.Stop says which
// happened. Errors are for bad configuration only.
func Run(ctx context.Context, items []Item, cfg Config, send SendFunc) (Stats, error) {
	if send == nil {
		return Stats{}, errors.New("scheduler: no send function")
	}
	var warm, measured []Item
	for _, it := range items {
		if it.Warmup {
			warm = append(warm, it)
		} else {
			measured = append(measured, it)
		}
	}
	// The split slices are Run's own, so the pacers sort them in place.
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
	stats.Stop, stats.Elapsed = r.phase(pacer, cfg.Duration, counters)
	stats.Sent = int(counters.Sent())
	stats.NotSent = int(counters.NotSent())
	stats.MaxLatenessNS = counters.MaxLatenessNS()
	stats.MaxQueueWaitNS = counters.MaxQueueWaitNS()
	return stats, nil
}

// runner holds what the phases of one Run share: the senders and the concurrency slots.
type runner struct {
	ctx  context.Context
	send SendFunc
	tune tuning
	// sem holds one token per request in flight under MaxConcurrency; nil without a cap.
	sem chan struct{}
	// jobs hands due items to parked workers; quit retires the workers at the end of Run.
	jobs     chan job
	quit     chan struct{}
	workers  sync.WaitGroup
	inFlight sync.WaitGroup
}

// job is one due item on its way to a sender; passing it by value keeps the hand-off free of
// allocations.
type job struct {
	it    Item
	sched int64
	ph    *phase
}

// phase is one paced pass (warmup or measured) with its own clock.
type phase struct {
	pacer    Pacer
	clock    *Clock
	counters *Counters
	// done carries session turns' completions back to the dispatcher; nil without sessions.
	// Its buffer holds every session item, so a sender never blocks on it.
	done chan completion
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
	stop := r.dispatch(ph, limit)
	counters.notSent.Add(int64(p.Remaining()))
	r.inFlight.Wait()
	return stop, time.Duration(ph.clock.Now())
}

// dispatch is the pacer loop: it runs on one goroutine, optionally wired to its own thread.
func (r *runner) dispatch(ph *phase, limit time.Duration) Stop {
	if r.tune.lockThread {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	if r.tune.lockThread && !r.tune.timerOnly {
		sharpenTimers()
		defer restoreTimers()
	}
	end := int64(math.MaxInt64)
	if limit > 0 {
		end = int64(limit)
	}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var batch []Item
	for {
		if r.ctx.Err() != nil {
			return StopCanceled
		}
		r.drain(ph)
		at, ok := ph.pacer.Next()
		if !ok && ph.pacer.Remaining() == 0 {
			return StopCompleted
		}
		// Wait for the next batch, or, when it lies beyond the deadline or every remaining
		// turn is gated, for a completion that may release an earlier turn.
		due, batchDue := end, ok && int64(at) < end
		if batchDue {
			due = int64(at)
		} else if ph.done == nil {
			return StopDuration // nothing can be released before the deadline
		}
		if ph.clock.Now() >= end {
			return StopDuration
		}
		switch r.waitUntil(ph, timer, due) {
		case woken:
			continue
		case canceled:
			return StopCanceled
		}
		if !batchDue {
			return StopDuration
		}
		if r.tune.onWake != nil {
			r.tune.onWake(due, ph.clock.Now())
		}
		batch = ph.pacer.Pop(batch[:0])
		for i := range batch {
			r.handoff(job{it: batch[i], sched: due, ph: ph})
		}
		clear(batch) // drop payload references
		if !r.tune.noYield && !r.behind(ph) {
			// Let the senders just woken run here now; otherwise they wait for the other
			// processor, which may be busy, while this one sleeps or spins. Not when the
			// next batch is already due: Gosched puts the dispatcher at the back of the
			// global run queue, behind every runnable sender.
			runtime.Gosched()
		}
	}
}

// behind reports whether the next batch is already due.
func (r *runner) behind(ph *phase) bool {
	at, ok := ph.pacer.Next()
	return ok && int64(at) <= ph.clock.Now()
}

// drain applies the completions that arrived, without waiting.
func (r *runner) drain(ph *phase) {
	if ph.done == nil {
		return
	}
	for {
		select {
		case c := <-ph.done:
			ph.pacer.Done(c.it, time.Duration(c.at))
		default:
			return
		}
	}
}

type waitResult int

const (
	reached  waitResult = iota // the due time came
	woken                      // a session turn completed and may have released an earlier item
	canceled                   // the context was canceled
)

// waitUntil brings the dispatcher to the due time in three steps: a runtime timer until coarse
// before it (interruptible by completions and cancellation), a precise sleep until spin
// before it, and a spin on the monotonic clock for the rest, so a batch leaves within
// microseconds of its due time without burning a core between batches.
func (r *runner) waitUntil(ph *phase, timer *time.Timer, due int64) waitResult {
	coarse, spin := int64(r.tune.coarse), int64(r.tune.spin)
	if r.tune.timerOnly {
		coarse = spin
	}
	for {
		rem := due - ph.clock.Now()
		switch {
		case rem <= 0:
			return reached
		case rem > coarse:
			timer.Reset(time.Duration(rem - coarse))
			select {
			case <-timer.C:
			case c := <-ph.done:
				timer.Stop()
				ph.pacer.Done(c.it, time.Duration(c.at))
				return woken
			case <-r.ctx.Done():
				timer.Stop()
				return canceled
			}
		case rem > spin:
			preciseSleep(time.Duration(rem - spin))
			if r.completed(ph) {
				return woken
			}
		default:
			for ph.clock.Now() < due {
				if r.completed(ph) {
					return woken
				}
			}
			return reached
		}
	}
}

// completed applies one session completion if one has arrived, without waiting.
func (r *runner) completed(ph *phase) bool {
	if ph.done == nil {
		return false
	}
	select {
	case c := <-ph.done:
		ph.pacer.Done(c.it, time.Duration(c.at))
		return true
	default:
		return false
	}
}

// handoff gives a due job to a parked worker, or starts a new one when none is idle, so the
// dispatcher never blocks on a sender.
func (r *runner) handoff(j job) {
	r.inFlight.Add(1)
	if r.tune.goPerSend {
		go r.execute(j)
		return
	}
	select {
	case r.jobs <- j:
	default:
		r.workers.Add(1)
		go r.worker(j)
	}
}

// worker sends its first job, then parks waiting for more until Run ends.
func (r *runner) worker(j job) {
	defer r.workers.Done()
	for {
		r.execute(j)
		select {
		case j = <-r.jobs:
		case <-r.quit:
			return
		}
	}
}

// execute waits for a concurrency slot if there is a cap, then sends one item.
func (r *runner) execute(j job) {
	defer r.inFlight.Done()
	ph := j.ph
	var wait int64
	if r.sem != nil {
		select {
		case r.sem <- struct{}{}:
		default:
			ph.counters.queued.Add(1)
			start := ph.clock.Now()
			select {
			case r.sem <- struct{}{}:
				wait = ph.clock.Now() - start
				ph.counters.queued.Add(-1)
			case <-r.ctx.Done():
				ph.counters.queued.Add(-1)
				ph.counters.notSent.Add(1)
				return
			}
		}
	}
	if r.ctx.Err() != nil {
		// Canceled before it left: not sent, whichever way the race for a slot went.
		if r.sem != nil {
			<-r.sem
		}
		ph.counters.notSent.Add(1)
		return
	}
	sent := ph.clock.Now()
	ph.counters.observeSend(sent-j.sched-wait, wait)
	r.send(r.ctx, j.it, Timing{ScheduledNS: j.sched, SentNS: sent, QueueWaitNS: wait, Clock: ph.clock})
	if r.sem != nil {
		<-r.sem
	}
	if ph.done != nil && j.it.SessionID != "" {
		ph.done <- completion{it: j.it, at: ph.clock.Now()}
	}
	ph.counters.observeDone()
}
