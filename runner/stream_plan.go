package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/synth"
	"github.com/llm-replay/replay/trace"
)

// streamPlan builds a large window's prompts while the run goes, ahead of their sends, instead
// of all of them before the clock starts: a day of production traffic is millions of prompts
// of thousands of tokens, tens of GiB held at once (328,000 prompts of the default workload's
// shapes: 13 GiB at its peak and 3.5 minutes before the first send). It holds at most its
// budget of built, encoded bodies not yet sent, and goes at most its lead (streamLead of the
// run) past the latest send: memory is what that stretch of the schedule holds plus what is in
// flight, whatever the window's length. The lead, not the budget, is what bounds it on a real
// trace: a garbage collection marks the whole live heap, and with a full GiB of prompts ahead
// each collection the builder's allocations brought on cost the sends tens of milliseconds.
//
// The prompts are the same as an eager build's, byte for byte: one builder goes through the
// records in the window's order, as build does (sessions extend their earlier turns). It runs
// on one worker, so that on a small machine the other processors are the dispatcher's and the
// senders'; a schedule that outruns it waits for its prompts, and that wait is lateness, in
// the rows and the verdict, as any client-side delay.
type streamPlan struct {
	slots  []atomic.Pointer[streamed] // by request index; nil until built, and again once every taker took it
	budget int64

	mu      sync.Mutex
	changed *sync.Cond
	ahead   int64         // bytes built and not yet taken
	built   int           // requests built so far, in index order
	need    int           // the highest index a send waits for, -1 for none: the builder passes its budget to reach it
	full    bool          // the builder waits for room in its budget or lead
	lead    time.Duration // how far in trace time the builder goes past the latest request taken
	sentTS  time.Duration // the latest trace offset of a request taken (the first record's before any)
	err     error         // the build's error; done once set or every request is built
	done    bool
	ideal   *analysis.IdealCounter

	stop context.CancelFunc
	wg   sync.WaitGroup
}

// streamed is one built request with its body encoded for each taker's send (a sender, one
// per endpoint: the same prompt, each endpoint's own model and fields); it is held until every
// taker has taken it.
type streamed struct {
	req    *synth.Request
	bodies []*client.Encoded // by taker; nil where encoding failed: that send encodes again and reports it
	size   int64
	left   atomic.Int32 // takers yet to take it
}

// errBuildBehind is the error of a send whose prompt was not built: the run was stopped first.
var errBuildBehind = errors.New("the run stopped before this request's prompt was built")

// startStream starts building recs' requests with b, encoding each for every one of takers
// (a sender an endpoint: each request is built once and taken by each); stop it with close.
// mine marks a shard's own requests (nil: all); the others are built, for the prompts after
// them, and dropped. blockSize is the ideal cache's block size (0: each record's own); lead
// is how far past the latest send, in trace time, the builder goes (the run starts once it is
// that far past the first, filled); fail stops the run when a record cannot be built.
func startStream(ctx context.Context, b *synth.Builder, recs []trace.Record, mine []bool, takers []*sender, budget int64, blockSize int, lead time.Duration, fail context.CancelCauseFunc) *streamPlan {
	ctx, cancel := context.WithCancel(ctx)
	sp := &streamPlan{slots: make([]atomic.Pointer[streamed], len(recs)), budget: budget, need: -1,
		lead: lead, sentTS: recs[0].Timestamp, ideal: analysis.NewIdealCounter(), stop: cancel}
	sp.changed = sync.NewCond(&sp.mu)
	context.AfterFunc(ctx, sp.wake)
	sp.wg.Go(func() {
		err := b.Stream(ctx, 1, eachRecord(recs), func(r synth.Request) error {
			sp.ideal.Add(r.BlockHashes, cmp.Or(blockSize, r.Record.BlockSize), r.TargetPromptTokens)
			sp.ideal.AddLogged(loggedCached(r.Record), r.TargetPromptTokens)
			if mine != nil && !mine[r.Index] { // another shard's: built for the prompts after it, not kept
				return nil
			}
			return sp.put(ctx, encodeFor(takers, r))
		})
		sp.mu.Lock()
		sp.err, sp.done = err, true
		sp.changed.Broadcast()
		sp.mu.Unlock()
		if err != nil && ctx.Err() == nil {
			fail(err) // a record that cannot be built stops the run, as it stops an eager build
		}
	})
	return sp
}

// encodeFor encodes r's body for each taker; once every one is encoded the prompt's text is
// dropped (the bodies hold it) unless the rows keep it.
func encodeFor(takers []*sender, r synth.Request) *streamed {
	e := &streamed{req: &r, bodies: make([]*client.Encoded, len(takers))}
	e.left.Store(int32(len(takers)))
	all := true
	for k, s := range takers {
		e.bodies[k], _ = s.client.Encode(s.request(&r))
		if e.bodies[k] == nil {
			all = false
			continue
		}
		e.size += int64(e.bodies[k].Size())
	}
	if all && !takers[0].keepPrompts {
		r.Prompt, r.Messages, r.PromptIDs = "", nil, nil
	}
	e.size += int64(len(r.Prompt)) + 64
	return e
}

// put stores a built request, encoded, once the budget has room for it and it is within the
// lead of the latest request taken (or a send waits for it).
func (sp *streamPlan) put(ctx context.Context, e *streamed) error {
	i, ts := e.req.Index, e.req.Record.Timestamp
	sp.mu.Lock()
	defer sp.mu.Unlock()
	for (sp.ahead+e.size > sp.budget || ts-sp.sentTS > sp.lead) && sp.ahead > 0 && sp.need < i && ctx.Err() == nil {
		sp.full = true
		sp.changed.Broadcast()
		sp.changed.Wait()
	}
	sp.full = false
	if err := ctx.Err(); err != nil {
		return err
	}
	sp.slots[i].Store(e)
	sp.ahead += e.size
	sp.built = i + 1
	sp.changed.Broadcast()
	return nil
}

// filled waits until the built requests reach the lead past the first, the budget is full or
// every request is built: the run starts with its first prompts ready and the builder ahead.
// It returns the build's error, if any.
func (sp *streamPlan) filled(ctx context.Context) error {
	stop := context.AfterFunc(ctx, sp.wake)
	defer stop()
	sp.mu.Lock()
	defer sp.mu.Unlock()
	for !sp.done && !sp.full && ctx.Err() == nil {
		sp.changed.Wait()
	}
	if sp.err == nil {
		return ctx.Err()
	}
	return sp.err
}

// wake wakes every waiter, to look at its context again.
func (sp *streamPlan) wake() {
	sp.mu.Lock()
	sp.changed.Broadcast()
	sp.mu.Unlock()
}

// take returns request i, built, and its body for taker k, waiting for the builder when it is
// behind; the last of its takers gives i up for the builder's budget. An error means the
// build failed or the run stopped.
func (sp *streamPlan) take(ctx context.Context, i, k int) (*synth.Request, *client.Encoded, error) {
	e := sp.slots[i].Load()
	if e == nil {
		var err error
		if e, err = sp.await(ctx, i); err != nil {
			return nil, nil, err
		}
	}
	body := e.bodies[k]
	e.bodies[k] = nil // each taker's own element: the body is the send's now
	sp.mu.Lock()
	if e.left.Add(-1) == 0 {
		sp.slots[i].Store(nil)
		sp.ahead -= e.size
	}
	sp.sentTS = max(sp.sentTS, e.req.Record.Timestamp)
	sp.changed.Broadcast()
	sp.mu.Unlock()
	return e.req, body, nil
}

// await waits for request i to be built, asking the builder to pass its budget to reach it.
func (sp *streamPlan) await(ctx context.Context, i int) (*streamed, error) {
	stop := context.AfterFunc(ctx, sp.wake)
	defer stop()
	sp.mu.Lock()
	defer sp.mu.Unlock()
	sp.need = max(sp.need, i)
	sp.changed.Broadcast()
	for {
		if e := sp.slots[i].Load(); e != nil {
			return e, nil
		}
		if sp.done || ctx.Err() != nil {
			if sp.err != nil {
				return nil, sp.err
			}
			return nil, errBuildBehind
		}
		sp.changed.Wait()
	}
}

// close stops the builder and waits for it; it returns the build's error and the ideal cache
// of the requests built (all of them when the run sent every request).
func (sp *streamPlan) close() (*analysis.IdealCache, error) {
	sp.stop()
	sp.wg.Wait()
	err := sp.err
	if errors.Is(err, context.Canceled) {
		err = nil // stopped by the run's end, not failed
	}
	return sp.ideal.Result(), err
}

// String says what the stream holds, for the run's messages.
func (sp *streamPlan) String() string {
	return fmt.Sprintf("up to %.0f MiB of prompts ahead of their sends", float64(sp.budget)/(1<<20))
}
