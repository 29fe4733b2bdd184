package sim

import (
	"net/http"
	"sync"
	"time"
)

// queuetime.go exposes the engine's own queue time per request, for tests that check a
// client's decomposition of TTFT into prefill and queueing against the truth: the time from a
// request's arrival at the engine (wall clock) to its admission into the running batch (the
// step that starts its prefill). Off unless KeepQueueTimes is called, so a long simulation does
// not grow a list.

// QueueTime is one request's wait in the engine's waiting queue, keyed by its X-Request-Id.
type QueueTime struct {
	RequestID string
	Wait      time.Duration
}

// queueTimes holds the recorded waits when on.
type queueTimes struct {
	mu    sync.Mutex
	on    bool
	times []QueueTime
}

// KeepQueueTimes makes the server record every admitted request's queue time from now on.
func (s *Server) KeepQueueTimes() {
	s.queue.mu.Lock()
	s.queue.on = true
	s.queue.mu.Unlock()
}

// QueueTimes returns the queue times recorded so far, in the order the answers ended.
func (s *Server) QueueTimes() []QueueTime {
	s.queue.mu.Lock()
	defer s.queue.mu.Unlock()
	return append([]QueueTime(nil), s.queue.times...)
}

// sinceStart is the engine's wall clock: the time since its virtual clock's origin.
func (e *engine) sinceStart() time.Duration { return time.Since(e.start) }

// noteQueue records sq's queue time once its answer has ended: from arrived (the engine's wall
// clock when it was submitted) to its admission on the engine's clock, which the engine keeps
// within a step of the wall clock. A sequence never admitted (cancelled while waiting) has none.
func (s *Server) noteQueue(r *http.Request, sq *seq, arrived time.Duration) {
	s.queue.mu.Lock()
	on := s.queue.on
	s.queue.mu.Unlock()
	if !on {
		return
	}
	s.eng.mu.Lock()
	admitted := sq.admitted
	s.eng.mu.Unlock()
	if admitted <= 0 {
		return
	}
	qt := QueueTime{RequestID: r.Header.Get("X-Request-Id"), Wait: max(0, admitted-arrived)}
	s.queue.mu.Lock()
	s.queue.times = append(s.queue.times, qt)
	s.queue.mu.Unlock()
}
