package client

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/internal/testenv"
)

// TestPlainTransportResendsOnlyUnansweredRequests: against a server that closes every
// connection after one response without saying so (llama-server after a streamed answer),
// every request of a run is answered; one written into a connection about to close, which the
// server never read, is sent once more on a new connection; and the server answers each
// request exactly once (none is processed twice).
func TestPlainTransportResendsOnlyUnansweredRequests(t *testing.T) {
	const n = 20
	for _, linger := range []time.Duration{0, 5 * time.Millisecond} {
		t.Run(fmt.Sprintf("linger=%v", linger), func(t *testing.T) {
			srv := testenv.NewClosingServer(t, linger, func(*http.Request, []byte) (int, string, string) {
				return http.StatusOK, "application/json", `{"ok":true}`
			})
			c, tr := plainClient(4)
			for i := range n {
				code, body := get(t, c, t.Context(), http.MethodPost, srv.URL+"/v1/completions", strings.NewReader(`{"i":1}`))
				if code != http.StatusOK || body != `{"ok":true}` {
					t.Fatalf("request %d: %d %q", i, code, body)
				}
			}
			if got := srv.Served.Load(); got != n {
				t.Fatalf("the server answered %d requests, want %d (each once)", got, n)
			}
			resent := tr.pool.resent.Load()
			if linger > 0 && resent == 0 {
				t.Fatalf("no request was resent, though each reused connection was closed under it")
			}
			t.Logf("%d requests, %d connections, %d resent", n, srv.Conns.Load(), resent)
		})
	}
}

// TestRunRequestsSurviveAServerThatCloses: the run's own send path (Client.Do, streamed
// answers), against a server that closes every connection after one answer without saying so:
// every request is ok, the server answers each exactly once, and the requests written into a
// connection about to close are marked Resent.
func TestRunRequestsSurviveAServerThatCloses(t *testing.T) {
	const n = 20
	for _, linger := range []time.Duration{0, 5 * time.Millisecond} {
		t.Run(fmt.Sprintf("linger=%v", linger), func(t *testing.T) {
			srv := testenv.NewClosingHandlerServer(t, linger, vllmChat(4, 0, nil))
			c := newClient(t, srv.URL, APIChat, nil)
			resent := 0
			for i := range n {
				r := c.Do(t.Context(), Request{Messages: []chat.Message{{Role: "user", Content: "hi"}}, MaxTokens: 4}, newClock())
				if !r.OK() {
					t.Fatalf("request %d: %s: %s", i, r.ErrorClass, r.ErrorMessage)
				}
				if r.Resent {
					resent++
				}
			}
			if got := srv.Served.Load(); got != n {
				t.Fatalf("the server answered %d requests, want %d (each once)", got, n)
			}
			if linger > 0 && resent == 0 {
				t.Fatalf("no request was resent, though each reused connection was closed under it")
			}
			t.Logf("%d requests ok, %d resent, on %d connections", n, resent, srv.Conns.Load())
		})
	}
}
