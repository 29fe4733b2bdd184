package synth

import (
	"context"
	"errors"
	"io"
	"runtime"
	"sync"

	"github.com/llm-replay/replay/trace"
)

// Stream builds the requests for the records next returns (io.EOF ends them) and hands them to
// emit in record order. Planning is sequential; the expensive part, re-encoding every prompt to
// verify it, runs on workers goroutines (GOMAXPROCS when workers < 1). The first error stops it.
func (b *Builder) Stream(ctx context.Context, workers int, next func() (trace.Record, error), emit func(Request) error) error {
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	jobs := make(chan streamWork, workers)
	order := make(chan chan streamResult, 2*workers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for w := range jobs {
				r, err := b.verify(w.j)
				w.out <- streamResult{r, err}
			}
		}()
	}
	planErr := make(chan error, 1)
	go func() {
		defer close(jobs)
		defer close(order)
		planErr <- b.planAll(ctx, next, jobs, order, stop)
	}()
	var firstErr error
	for out := range order {
		if firstErr != nil {
			continue
		}
		r := <-out
		err := r.err
		if err == nil {
			err = emit(r.req)
		}
		if err != nil {
			firstErr = err
			close(stop)
		}
	}
	wg.Wait()
	if err := <-planErr; firstErr == nil {
		firstErr = err
	}
	return firstErr
}

// streamResult is one verified request, or why it failed.
type streamResult struct {
	req Request
	err error
}

// streamWork is one planned request for a worker to verify, and where its result goes.
type streamWork struct {
	j   *job
	out chan streamResult
}

// planAll is Stream's planner, apart from the fan-out because it is the sequential part: it
// plans each record in order, queues its result slot on order (so emit keeps record order
// whichever worker finishes first) and its job on jobs, until the records end, one fails, ctx
// ends or stop closes (emit failed: then it returns nil, the error being emit's).
func (b *Builder) planAll(ctx context.Context, next func() (trace.Record, error), jobs chan<- streamWork, order chan<- chan streamResult, stop <-chan struct{}) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		j, err := b.plan(rec)
		if err != nil {
			return err
		}
		out := make(chan streamResult, 1)
		select {
		case order <- out:
		case <-stop:
			return nil
		}
		select {
		case jobs <- streamWork{j, out}:
		case <-stop:
			return nil
		}
	}
}
