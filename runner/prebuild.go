package runner

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/synth"
)

// prebuildWindow is how many bodies the prebuilder keeps encoded ahead of their sends: enough
// to stay ahead of any rate this machine can send, few enough that a day-long trace's bodies
// are never all in memory at once.
const prebuildWindow = 256

// prebuilder encodes request bodies ahead of their sends, in schedule order, at most
// prebuildWindow unsent at a time, so that a send at its due time only writes its bytes: on
// the default workload (prompts of 1,000-8,000 tokens) encoding was the larger part of the
// send lateness (median 0.2 ms between the dispatch and the last byte written). A request
// whose body is not ready when it is due (a burst that outran the encoder) is encoded at its
// send, as without a prebuilder.
type prebuilder struct {
	bodies []atomic.Pointer[client.Encoded] // by request index
	slots  chan struct{}                    // one per body encoded and not yet taken
	stop   context.CancelFunc
	done   sync.WaitGroup
}

// startPrebuild starts encoding reqs' bodies for s, earliest first, those keep marks (all of
// them for a nil keep: a resumed run sends only its unsent ones); stop it with close.
func startPrebuild(ctx context.Context, s *sender, reqs []synth.Request, keep []bool) *prebuilder {
	ctx, cancel := context.WithCancel(ctx)
	b := &prebuilder{bodies: make([]atomic.Pointer[client.Encoded], len(reqs)), slots: make(chan struct{}, prebuildWindow), stop: cancel}
	order := make([]int, len(reqs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return int(reqs[x].Record.Timestamp - reqs[y].Record.Timestamp) })
	b.done.Go(func() {
		for _, i := range order {
			if keep != nil && !keep[i] {
				continue
			}
			select {
			case b.slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			e, err := s.client.Encode(s.request(&reqs[i]))
			if err != nil { // the send encodes it again and reports the error in its row
				<-b.slots
				continue
			}
			b.bodies[i].Store(e)
		}
	})
	return b
}

// take returns request i's body if it is ready, nil otherwise (or on a nil prebuilder).
func (b *prebuilder) take(i int) *client.Encoded {
	if b == nil || i < 0 || i >= len(b.bodies) {
		return nil
	}
	e := b.bodies[i].Swap(nil)
	if e != nil {
		<-b.slots
	}
	return e
}

// close stops the encoder and waits for it.
func (b *prebuilder) close() {
	if b == nil {
		return
	}
	b.stop()
	b.done.Wait()
}
