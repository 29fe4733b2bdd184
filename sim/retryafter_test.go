package sim

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestRetryAfterValue(t *testing.T) {
	cases := []struct {
		d    time.Duration
		want string
	}{
		{time.Nanosecond, "1"}, {time.Second, "1"}, {1001 * time.Millisecond, "2"},
		{2 * time.Second, "2"}, {90 * time.Second, "90"}, {math.MaxInt64, "9223372037"},
	}
	for _, c := range cases {
		if got := retryAfterValue(c.d); got != c.want {
			t.Errorf("%v: %q, want %q", c.d, got, c.want)
		}
	}
}

// TestRetryAfterOnInjected429 checks the header on an injected 429, and its absence when
// RetryAfter is 0.
func TestRetryAfterOnInjected429(t *testing.T) {
	for _, zero := range []bool{true, false} {
		for _, ra := range []time.Duration{0, 1500 * time.Millisecond} {
			cfg := fastConfig()
			cfg.ZeroCost = zero
			cfg.Faults = Faults{RateLimitRate: 1, RetryAfter: ra}
			_, url := startServer(t, cfg)
			o := send(t, context.Background(), url, "/v1/completions", "", tinyRequest(false, true, 2))
			want := map[time.Duration]string{0: "", 1500 * time.Millisecond: "2"}[ra]
			if o.status != http.StatusTooManyRequests || o.header.Get("Retry-After") != want {
				t.Errorf("zero=%v RetryAfter=%v: status %d, Retry-After %q, want 429 and %q", zero, ra, o.status, o.header.Get("Retry-After"), want)
			}
		}
	}
}

// TestRetryAfterOnQueueFull fills the engine (one running, one waiting) and checks the third
// request's 429 carries the header.
func TestRetryAfterOnQueueFull(t *testing.T) {
	cfg := fastConfig()
	cfg.MaxBatch = 1
	cfg.MaxWaiting = 1
	cfg.Faults.RetryAfter = 3 * time.Second
	s, url := startServer(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	running := openStream(t, ctx, url, 100000)
	<-running                  // it runs, so the next one waits
	openStream(t, ctx, url, 2) // its headers come at once; its tokens wait
	if !settles(func() bool { return s.eng.snapshot().waiting == 1 }) {
		t.Fatal("second request never waited")
	}
	o := send(t, context.Background(), url, "/v1/completions", "", tinyRequest(false, true, 2))
	if o.status != http.StatusTooManyRequests || o.header.Get("Retry-After") != "3" || !strings.Contains(string(o.body), "queue full") {
		t.Errorf("status %d, Retry-After %q, body %s; want a queue-full 429 with 3", o.status, o.header.Get("Retry-After"), o.body)
	}
}

// TestRetryAfterOn503 checks the header on a server that is not started.
func TestRetryAfterOn503(t *testing.T) {
	cfg := fastConfig()
	cfg.Faults.RetryAfter = time.Second
	rec := httptest.NewRecorder()
	New(cfg).ServeHTTP(rec, httptest.NewRequest("POST", "/v1/completions", strings.NewReader(`{"prompt":"a"}`)))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" {
		t.Errorf("status %d, Retry-After %q, want 503 and 1", rec.Code, rec.Header().Get("Retry-After"))
	}
}
