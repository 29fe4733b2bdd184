package checks

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-replay/replay/sim"
)

// TestProbeRetriesOverload: a probe answered 429 is asked again, so an endpoint shedding every
// other request (the simulator behind a gate) passes every check; one that sheds every request
// fails them, saying it was retried.
func TestProbeRetriesOverload(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.StepBase, cfg.StepPerSeq, cfg.StepPerKVToken = 3*time.Millisecond, 0, 0
	s := sim.New(cfg)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	defer func(w time.Duration) { retryWait = w }(retryWait)
	retryWait = 10 * time.Millisecond
	for _, every := range []int64{2, 1} {
		var n atomic.Int64
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1)%every == 0 {
				http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusTooManyRequests)
				return
			}
			s.ServeHTTP(w, r)
		}))
		res, err := RunLevel(t.Context(), Config{BaseURL: hs.URL + "/v1", Model: "m"}, LevelBasic)
		hs.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			switch {
			case every == 2 && r.Verdict() != VerdictPass:
				t.Errorf("every other request shed: %s %s %q", r.Name, r.Verdict(), r.Examples)
			case every == 1 && (r.Verdict() != VerdictFail || len(r.Examples) == 0 || !strings.Contains(r.Examples[0], "HTTP 429") ||
				!strings.Contains(r.Examples[0], "after 2 retries")):
				t.Errorf("every request shed: %s %s %q", r.Name, r.Verdict(), r.Examples)
			}
		}
	}
}
