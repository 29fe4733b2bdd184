package runner

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/scheduler"
)

const (
	// PreconnectAuto asks for the default number of connections opened before the first send.
	PreconnectAuto = -1
	// preconnectWindow is the stretch of schedule whose requests the default opens connections
	// for: the requests sent within it are in flight together unless their answers take less,
	// and an engine's answers of a few hundred tokens take seconds. A shorter window left the
	// default run (prompts of thousands of tokens, 80 in flight at peak) connecting during the
	// run, which was most of its send lateness p99 (1.0-1.2 ms; 0.49 ms with the connections
	// open before).
	preconnectWindow = 5 * time.Second
	// preconnectMax bounds the default: enough for the dense bursts of a busy trace, far under
	// this machine's descriptor limit.
	preconnectMax = 256
)

// preconnectCount is how many connections to open before the run: n when given (0: none),
// else the most requests the schedule sends within any preconnectWindow, at most
// preconnectMax and half the client's in-flight limit.
func preconnectCount(n int, items []scheduler.Item, speed float64, clientLimit int) int {
	if n >= 0 {
		return n
	}
	if speed <= 0 {
		speed = 1
	}
	at := make([]int64, len(items))
	for i, it := range items {
		at[i] = int64(float64(it.Timestamp) / speed)
	}
	slices.Sort(at)
	peak, lo := 0, 0
	for hi := range at {
		for at[hi]-at[lo] >= int64(preconnectWindow) {
			lo++
		}
		peak = max(peak, hi-lo+1)
	}
	peak = min(peak, preconnectMax)
	if clientLimit > 0 {
		peak = min(peak, max(clientLimit/2, 1))
	}
	return peak
}

// preconnect opens the connections before the schedule starts and says how many; a failure
// is a warning (the run then connects as it goes, and the lateness shows it).
func preconnect(ctx context.Context, c *client.Client, n int, label string, stderr io.Writer) {
	if n <= 0 {
		return
	}
	start := time.Now()
	opened, err := c.Preconnect(ctx, n)
	who := ""
	if label != "" {
		who = " to " + label
	}
	if err != nil {
		fmt.Fprintf(stderr, "replay: warning: preconnect%s: %v (the first requests connect as they go)\n", who, err)
		return
	}
	fmt.Fprintf(stderr, "replay: %d connections%s opened before the first send (%d asked, %v)\n", opened, who, n, time.Since(start).Round(time.Millisecond))
}
