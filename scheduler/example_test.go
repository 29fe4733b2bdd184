package scheduler_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/llm-replay/replay/scheduler"
)

// A two-turn conversation and an independent request, replayed at twice the trace's speed
// with at most 8 requests in flight and one warmup request first.
func ExampleRun() {
	trace := []scheduler.Item{
		{Index: 0, Timestamp: 0, SessionID: "chat-1", Turn: 0, Payload: "hello"},
		{Index: 1, Timestamp: 40 * time.Millisecond, SessionID: "chat-1", Turn: 1, Payload: "and then?"},
		{Index: 2, Timestamp: 10 * time.Millisecond, Payload: "summarize this"},
	}
	items := append(scheduler.WarmupItems(trace, 1, 0), trace...)

	var measured atomic.Int64
	send := func(ctx context.Context, it scheduler.Item, t scheduler.Timing) {
		// A real sender streams the request here, reads chunk times from t.Clock.Now() and
		// writes a result row with t.ScheduledNS, t.SentNS and t.QueueWaitNS.
		if !it.Warmup {
			measured.Add(1)
		}
	}
	stats, err := scheduler.Run(context.Background(), items, scheduler.Config{Speed: 2, MaxConcurrency: 8}, send)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(stats.Stop, stats.WarmupSent, stats.Sent, stats.NotSent, measured.Load())
	// Output: completed 1 3 0 3
}
