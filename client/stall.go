package client

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"
)

// errStalled is the request context's cause when Config.StallTimeout passed without a byte.
var errStalled = errors.New("stall timeout")

// stallWatch cancels a request that receives no byte for limit. The reader stores the clock
// value it already takes per read (one atomic store: no timer Reset, no syscall per read);
// one timer per request fires after limit, looks at the gap since that value and re-arms for
// the remainder, so a flowing stream costs one timer fire per limit and a stalled one fires
// once. Ten thousand stalled streams are ten thousand dormant runtime timers.
type stallWatch struct {
	limit  time.Duration
	clock  func() int64
	cancel context.CancelCauseFunc
	last   atomic.Int64 // clock value of the last byte (or of the send)
	done   atomic.Bool
	timer  *time.Timer
}

// startStall watches a request sent at clock value now.
func startStall(limit time.Duration, clock func() int64, now int64, cancel context.CancelCauseFunc) *stallWatch {
	w := &stallWatch{limit: limit, clock: clock, cancel: cancel}
	w.last.Store(now)
	// Created dormant and then armed, so that check never sees w.timer unset.
	w.timer = time.AfterFunc(math.MaxInt64, w.check)
	w.timer.Reset(limit)
	return w
}

// touch records that bytes arrived at clock value now.
func (w *stallWatch) touch(now int64) { w.last.Store(now) }

// check runs when the timer fires: it cancels the request when the gap since the last byte
// reached the limit, else re-arms for what is left of it.
func (w *stallWatch) check() {
	if w.done.Load() {
		return
	}
	gap := time.Duration(max(w.clock()-w.last.Load(), 0)) // a touch may race the clock read
	if gap >= w.limit {
		w.cancel(errStalled)
		return
	}
	w.timer.Reset(w.limit - gap)
}

// stop ends the watch; a check already running sees done and does nothing more.
func (w *stallWatch) stop() {
	w.done.Store(true)
	w.timer.Stop()
}

// message explains the stall, telling one before the headers from one mid-stream.
func (w *stallWatch) message(r *Response) string {
	if r.HTTPStatus == 0 {
		return fmt.Sprintf("no response headers for %v after the send (stall timeout)", w.limit)
	}
	return fmt.Sprintf("no bytes for %v after %d content chunks (stall timeout)", w.limit, len(r.ChunkNS))
}
