package engine

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/llm-replay/replay/internal/testenv"
)

// TestProbesSurviveAServerThatCloses: the engine's probes and resets (POSTs with a body, and
// GETs) on one client, against a server that closes every connection after one response
// without saying so (llama-server after a streamed answer), all get their answer: net/http
// sends one again when the server closed the reused connection before a byte of the answer.
func TestProbesSurviveAServerThatCloses(t *testing.T) {
	for _, linger := range []time.Duration{0, 5 * time.Millisecond} {
		t.Run(fmt.Sprintf("linger=%v", linger), func(t *testing.T) {
			srv := testenv.NewClosingServer(t, linger, func(*http.Request, []byte) (int, string, string) {
				return http.StatusOK, "application/json", `{"ok":true}`
			})
			c := &http.Client{}
			for i := range 10 {
				method, body := http.MethodPost, []byte(`{"max_tokens":1}`)
				if i%2 == 1 {
					method, body = http.MethodGet, nil
				}
				if r := send(t.Context(), c, method, srv.URL+"/v1/completions", body, smallBody); !r.ok() {
					t.Fatalf("%s %d: %s", method, i, r.describe())
				}
			}
			if got := srv.Served.Load(); got != 10 {
				t.Fatalf("the server answered %d requests, want 10 (each once)", got)
			}
		})
	}
}
