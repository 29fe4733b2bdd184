package scheduler

import (
	"math"
	"runtime"
	"time"
)

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
			backlog, ok := r.clientSlot(ph, due)
			if !ok {
				ph.counters.notSent.Add(int64(len(batch) - i))
				clear(batch)
				return StopCanceled
			}
			r.handoff(job{it: batch[i], sched: due, backlog: backlog, ph: ph})
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
