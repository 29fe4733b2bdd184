package scheduler

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
	defer r.releaseClient()
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
	r.send(r.ctx, j.it, Timing{ScheduledNS: j.sched, SentNS: sent, QueueWaitNS: wait, ClientBacklogNS: j.backlog, Clock: ph.clock})
	if r.sem != nil {
		<-r.sem
	}
	if ph.done != nil && j.it.SessionID != "" {
		ph.done <- completion{it: j.it, at: ph.clock.Now()}
	}
	ph.counters.observeDone()
}
