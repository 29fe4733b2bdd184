package client

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestRetryAfterParse(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		v    string
		want int64
	}{
		{"", 0},
		{"0", 0},
		{"7", 7e9},
		{" 120 ", 120e9},
		{"Sat, 01 Mar 2025 12:00:30 GMT", 30e9}, // IMF-fixdate
		{"Saturday, 01-Mar-25 12:01:00 GMT", 60e9},    // RFC 850
		{"Sat Mar  1 12:00:05 2025", 5e9},             // asctime
		{"Sat, 01 Mar 2025 11:59:00 GMT", 0},          // in the past
		{"soon", 0}, {"-5", 0}, {"+5", 0}, {"1.5", 0}, // not delay-seconds
		{"99999999999999999999", math.MaxInt64}, // saturates
		{"9300000000", math.MaxInt64},           // over 292 years of ns
	} {
		if got := retryAfter(tc.v, now); got != tc.want {
			t.Errorf("retryAfter(%q) = %d, want %d", tc.v, got, tc.want)
		}
	}
}

// Retry-After reaches the Response on 429 and 503, in both forms, and only there.
func TestRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		status   int
		header   string
		min, max time.Duration
	}{
		{429, "3", 3 * time.Second, 3 * time.Second},
		{503, time.Now().Add(time.Hour).UTC().Format(http.TimeFormat), 59 * time.Minute, time.Hour},
		{503, "", 0, 0},
		{429, "garbage", 0, 0},
		{500, "3", 0, 0},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if tc.header != "" {
				w.Header().Set("Retry-After", tc.header)
			}
			w.WriteHeader(tc.status)
		}))
		r := newClient(t, srv.URL, APIChat, nil).Do(context.Background(), Request{Prompt: "x"}, newClock())
		srv.Close()
		if got := time.Duration(r.RetryAfterNS); r.HTTPStatus != tc.status || got < tc.min || got > tc.max {
			t.Errorf("%d Retry-After %q: got %v, want %v to %v", tc.status, tc.header, got, tc.min, tc.max)
		}
	}
}
