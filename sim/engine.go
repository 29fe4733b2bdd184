package sim

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// errEngineClosed ends sequences still in the engine when it stops.
var errEngineClosed = errors.New("simulated engine stopped")

// stream carries one sequence's progress from the engine goroutine to its HTTP handler without
// ever blocking the engine: the engine stores the token count (of each choice: they advance
// together) and pokes a one-slot channel; the answer is complete when the count reaches
// max_tokens.
type stream struct {
	tokens atomic.Int64
	cached atomic.Int64
	// done is set once the sequence has finished: what a prefill-only sequence, which counts
	// no tokens, is waited for by.
	done   atomic.Bool
	err    atomic.Pointer[error]
	notify chan struct{}
}

func newStream() *stream { return &stream{notify: make(chan struct{}, 1)} }

func (st *stream) poke() {
	select {
	case st.notify <- struct{}{}:
	default:
	}
}

// engine runs the core in real time: virtual time advances with each step, and the goroutine
// sleeps until the wall clock reaches the step's end before delivering its tokens.
type engine struct {
	mu    sync.Mutex
	core  *core
	start time.Time
	wake  chan struct{}
	next  uint64
	// stopped is set (under mu) once the loop has exited; later submissions fail.
	stopped bool
}

func newEngine(cfg *Config) *engine {
	e := &engine{wake: make(chan struct{}, 1), start: time.Now()}
	e.core = newCore(cfg, func(s *seq, tokens int, _ time.Duration) {
		if s.out == nil {
			return
		}
		if tokens <= 1 { // the first event: the first token, or a prefill-only sequence's end
			s.out.cached.Store(int64(s.cached))
		}
		s.out.tokens.Store(int64(tokens))
		if s.state == seqFinished {
			s.out.done.Store(true)
		}
		s.out.poke()
	})
	return e
}

// submitResult says what became of a submission.
type submitResult int

const (
	submitted submitResult = iota
	queueFull
	tooLarge
	tooWide
	engineStopped
)

// submit queues a sequence.
func (e *engine) submit(s *seq) submitResult { return e.submitAll([]*seq{s}) }

// submitAll queues sequences at one instant, so that one step can see them all (the inputs of
// one embeddings request), or none of them when one cannot be queued.
func (e *engine) submitAll(seqs []*seq) submitResult {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, s := range seqs {
		if res := e.queue(s); res != submitted {
			for _, q := range seqs[:i] {
				e.core.cancel(q)
			}
			return res
		}
	}
	select {
	case e.wake <- struct{}{}:
	default:
	}
	return submitted
}

// queue queues one sequence; e.mu is held.
func (e *engine) queue(s *seq) submitResult {
	if e.stopped {
		return engineStopped
	}
	if e.core.tooWide(s) {
		return tooWide
	}
	if !e.core.fits(s) {
		return tooLarge
	}
	if e.core.idle() {
		// An idle engine's clock catches up with the wall clock: the request arrives now.
		e.core.now = max(e.core.now, time.Since(e.start))
	}
	e.next++
	s.id = e.next
	if !e.core.add(s) {
		return queueFull
	}
	return submitted
}

// cancel drops a sequence whose client went away.
func (e *engine) cancel(s *seq) {
	e.mu.Lock()
	e.core.cancel(s)
	e.mu.Unlock()
}

// run is the engine loop; it returns when ctx is done, failing every sequence still inside.
func (e *engine) run(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	defer e.shutdown()
	for {
		e.mu.Lock()
		if e.core.idle() {
			e.mu.Unlock()
			select {
			case <-e.wake:
				continue
			case <-ctx.Done():
				return
			}
		}
		p := e.core.plan()
		if len(p.prefill) == 0 && len(p.decode) == 0 {
			// Waiting work that cannot be admitted with nothing running cannot happen (fits is
			// checked at submission), but never spin if it does.
			e.mu.Unlock()
			select {
			case <-e.wake:
				continue
			case <-ctx.Done():
				return
			}
		}
		end := e.start.Add(e.core.now + p.dur)
		e.mu.Unlock()
		if wait := time.Until(end); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				return
			}
		}
		e.mu.Lock()
		e.core.apply(p)
		e.mu.Unlock()
	}
}

// shutdown fails the sequences left in the engine.
func (e *engine) shutdown() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.stopped = true
	err := errEngineClosed
	for _, list := range [][]*seq{e.core.waiting, e.core.running} {
		for _, s := range list {
			if s.out != nil {
				s.out.err.Store(&err)
				s.out.poke()
			}
		}
	}
	for _, s := range append(append([]*seq(nil), e.core.waiting...), e.core.running...) {
		e.core.cancel(s)
	}
}

// snapshot is the engine state /metrics reports.
type snapshot struct {
	running, waiting                        int
	kvUsage                                 float64
	promptTokens, generationTokens, success uint64
	cacheQueries, cacheHits                 uint64
}

func (e *engine) snapshot() snapshot {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.core
	return snapshot{
		running: len(c.running), waiting: len(c.waiting), kvUsage: c.kv.usage(),
		promptTokens: c.promptTokens, generationTokens: c.generationTokens, success: c.success,
		cacheQueries: c.cacheQueries, cacheHits: c.cacheHits,
	}
}
