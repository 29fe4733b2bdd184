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
	type result struct {
		req Request
		err error
	}
	type work struct {
		j   *job
		out chan result
	}
	jobs := make(chan work, workers)
	order := make(chan chan result, 2*workers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for w := range jobs {
				r, err := b.verify(w.j)
				w.out <- result{r, err}
			}
		}()
	}
	planErr := make(chan error, 1)
	go func() {
		defer close(jobs)
		defer close(order)
		for {
			if err := ctx.Err(); err != nil {
				planErr <- err
				return
			}
			rec, err := next()
			if errors.Is(err, io.EOF) {
				planErr <- nil
				return
			}
			if err != nil {
				planErr <- err
				return
			}
			j, err := b.plan(rec)
			if err != nil {
				planErr <- err
				return
			}
			out := make(chan result, 1)
			select {
			case order <- out:
			case <-stop:
				planErr <- nil
				return
			}
			select {
			case jobs <- work{j, out}:
			case <-stop:
				planErr <- nil
				return
			}
		}
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
