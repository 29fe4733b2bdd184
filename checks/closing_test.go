package checks

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/internal/testenv"
)

// TestChecksSurviveAServerThatCloses: against a server that closes every connection after one
// response without saying so (as llama-server does after a streamed answer), every probe is
// answered: a probe written into a connection about to close is sent again, never failed with
// "unexpected EOF". Streaming is left out: the closing server sends a recorded stream in one
// piece, which the streaming check rightly fails.
func TestChecksSurviveAServerThatCloses(t *testing.T) {
	for _, linger := range []time.Duration{0, 5 * time.Millisecond} {
		t.Run(fmt.Sprintf("linger=%v", linger), func(t *testing.T) {
			srv := testenv.NewClosingHandlerServer(t, linger, &fakeServer{})
			res := Run(t.Context(), Config{BaseURL: srv.URL + "/v1", Model: "m", Timeout: 20 * time.Second})
			for _, r := range res {
				if r.Name == Streaming {
					continue
				}
				if r.Verdict() != VerdictPass || strings.Contains(report(res), "EOF") {
					t.Errorf("%s: %s\n%s", r.Name, r.Verdict(), report(res))
				}
			}
			t.Logf("%d probes answered on %d connections", srv.Served.Load(), srv.Conns.Load())
		})
	}
}
