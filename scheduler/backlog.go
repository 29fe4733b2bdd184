package scheduler

// clientSlot takes one of the client's slots (Config.ClientLimit) for an item due at due. When
// the client is at its limit the dispatcher waits here for a request to return: holding the
// send is honest (the item leaves late, and says why), where sending it would fail on this
// machine's descriptors or ports and look like the endpoint's failure, and where handing it
// to a goroutine to wait would grow memory without bound. It returns the part of the item's
// lateness the hold caused, and false when the run was canceled while holding.
func (r *runner) clientSlot(ph *phase, due int64) (int64, bool) {
	if r.clientSlots == nil {
		return 0, true
	}
	select {
	case r.clientSlots <- struct{}{}:
	default:
		select {
		case r.clientSlots <- struct{}{}:
		case <-r.ctx.Done():
			return 0, false
		}
		ph.heldUntil = ph.clock.Now()
	}
	if ph.heldUntil <= due {
		return 0, true
	}
	backlog := ph.heldUntil - due
	ph.counters.observeHold(backlog)
	return backlog, true
}

// releaseClient gives back the slot clientSlot took.
func (r *runner) releaseClient() {
	if r.clientSlots != nil {
		<-r.clientSlots
	}
}
