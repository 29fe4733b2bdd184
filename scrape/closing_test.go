package scrape

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/llm-replay/replay/internal/testenv"
)

// TestScrapesSurviveAServerThatCloses: scrapes every 2 ms of a page whose server closes every
// connection after one response without saying so (llama-server after a streamed answer) all
// succeed: a GET on a connection the server closed before answering is sent again.
func TestScrapesSurviveAServerThatCloses(t *testing.T) {
	page := "# TYPE llamacpp:requests_processing gauge\nllamacpp:requests_processing 1\n"
	for _, linger := range []time.Duration{0, 5 * time.Millisecond} {
		t.Run(fmt.Sprintf("linger=%v", linger), func(t *testing.T) {
			srv := testenv.NewClosingServer(t, linger, func(*http.Request, []byte) (int, string, string) {
				return http.StatusOK, "text/plain; version=0.0.4", page
			})
			s, err := Start(t.Context(), Config{URL: srv.URL + "/metrics", Interval: 2 * time.Millisecond, Names: LlamaCpp})
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond)
			res := s.Stop()
			if res.Failures != 0 || res.Scrapes < 5 {
				t.Fatalf("%d scrapes, %d failed (first: %s): want every scrape to succeed", res.Scrapes, res.Failures, res.FirstError)
			}
			t.Logf("%d scrapes, none failed, on %d connections", res.Scrapes, srv.Conns.Load())
		})
	}
}
