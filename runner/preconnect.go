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
	// for: a burst that arrives within it needs that many connections at once unless answers
	// come back faster than this, and an answer from a real engine takes longer.
	preconnectWindow = 50 * time.Millisecond
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
