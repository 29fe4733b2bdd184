package sim

import (
	"context"
	"time"
)

// stallEnd says why a stall ended, which decides what the handler does next.
type stallEnd int

const (
	stallElapsed      stallEnd = iota // go on answering
	stallClientGone                   // the client left: release everything, write nothing
	stallServerClosed                 // Close was called: end the answer as a stopping server does
)

// stall waits for the configured Stall, or until the client goes away or the server closes
// when sooner; a Stall of 0 waits only for those two. It holds a timer and the handler's own
// goroutine, nothing else and no polling, so thousands of stalled requests cost little.
func (s *Server) stall(ctx context.Context) stallEnd {
	var elapsed <-chan time.Time
	if d := s.cfg.Faults.Stall; d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		elapsed = t.C
	}
	select {
	case <-elapsed:
		return stallElapsed
	case <-ctx.Done():
		return stallClientGone
	case <-s.closed:
		return stallServerClosed
	}
}

// stallsBeforeFirstByte reports whether f is a stall that comes before anything is written.
func (s *Server) stallsBeforeFirstByte(f Fault) bool {
	return f == FaultStall && !s.cfg.Faults.stallsAtFirstToken()
}

// stallsAfterFirstToken reports whether f is a stall that comes after the headers and the
// first content chunk.
func (s *Server) stallsAfterFirstToken(f Fault) bool {
	return f == FaultStall && s.cfg.Faults.stallsAtFirstToken()
}
