package sim

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"
)

// classify names what a client saw, as the replay client's error classes do.
func classify(res sseResult) string {
	switch {
	case res.status == http.StatusInternalServerError:
		return "http_5xx"
	case res.status == http.StatusTooManyRequests:
		return "http_429"
	case res.status != http.StatusOK:
		return fmt.Sprintf("http_%d", res.status)
	case res.err != nil || !res.done:
		return "stream_broken"
	}
	return "ok"
}

func TestFaultInjectionOverHTTP(t *testing.T) {
	for _, zero := range []bool{true, false} {
		cfg := fastConfig()
		cfg.ZeroCost = zero
		cfg.Seed = 9
		cfg.Faults = Faults{ErrorRate: 0.2, RateLimitRate: 0.2, BreakRate: 0.2}
		run := func() []string {
			_, url := startServer(t, cfg)
			var classes []string
			for range 100 {
				res := post(t, url, "/v1/chat/completions", map[string]any{
					"messages": []map[string]string{{"role": "user", "content": "hi"}}, "max_tokens": 6, "stream": true})
				c := classify(res)
				if c == "stream_broken" && len(res.events) != 3 {
					t.Errorf("broken stream delivered %d chunks before the cut, want 3 (half)", len(res.events))
				}
				if c == "ok" && len(res.events) != 6 {
					t.Errorf("ok stream with %d chunks", len(res.events))
				}
				classes = append(classes, c)
			}
			return classes
		}
		a := run()
		b := run()
		if !slices.Equal(a, b) {
			t.Errorf("zero=%v: same seed, different fault sequences", zero)
		}
		count := map[string]int{}
		for _, c := range a {
			count[c]++
		}
		t.Logf("zero=%v: %v", zero, count)
		for _, c := range []string{"http_5xx", "http_429", "stream_broken"} {
			if count[c] < 8 || count[c] > 35 {
				t.Errorf("zero=%v: %s %d times in 100, want about 20", zero, c, count[c])
			}
		}
		if count["ok"]+count["http_5xx"]+count["http_429"]+count["stream_broken"] != 100 {
			t.Errorf("zero=%v: unexpected classes %v", zero, count)
		}
	}
}

func TestNonStreamingBreak(t *testing.T) {
	cfg := fastConfig()
	cfg.Faults.BreakRate = 1
	_, url := startServer(t, cfg)
	resp, err := http.Post(url+"/v1/completions", "application/json", jsonBody(map[string]any{"prompt": "a", "max_tokens": 4}))
	if err == nil {
		resp.Body.Close()
		t.Fatalf("got a response (%d), want a cut connection", resp.StatusCode)
	}
}

func TestStall(t *testing.T) {
	cfg := fastConfig()
	cfg.ZeroCost = true
	cfg.Faults = Faults{StallRate: 1, Stall: 150 * time.Millisecond}
	_, url := startServer(t, cfg)
	res := post(t, url, "/v1/completions", map[string]any{"prompt": "a", "max_tokens": 2, "stream": true})
	if classify(res) != "ok" || res.ttft < 150*time.Millisecond {
		t.Errorf("stalled request: %s, first chunk after %v (want >= 150ms)", classify(res), res.ttft)
	}
}
