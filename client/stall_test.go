package client

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A stream that goes quiet ends at the stall timeout, with a message unlike Timeout's.
func TestStallTimeout(t *testing.T) {
	const stall = 200 * time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(hang))
	defer srv.Close()
	c := newClient(t, srv.URL, APIChat, func(c *Config) { c.StallTimeout = stall })
	start := time.Now()
	r := c.Do(context.Background(), Request{Prompt: "x"}, newClock())
	took := time.Since(start)
	if r.ErrorClass != ErrTimeout || len(r.ChunkNS) != 1 || r.HTTPStatus != 200 ||
		r.ErrorMessage != "no bytes for 200ms after 1 content chunks (stall timeout)" {
		t.Fatalf("%q %q chunks %d", r.ErrorClass, r.ErrorMessage, len(r.ChunkNS))
	}
	// ~200 ms after the chunk; the bound leaves room for a loaded machine.
	if gap := time.Duration(r.DoneNS - r.LastTokenNS); gap < stall || took > stall+300*time.Millisecond {
		t.Fatalf("ended %v after the last chunk, %v after the send", gap, took)
	}
}

// A server that never sends its headers stalls from the send.
func TestStallTimeoutBeforeHeaders(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { waitGone(r) }))
	defer srv.Close()
	c := newClient(t, srv.URL, APIChat, func(c *Config) { c.StallTimeout = 100 * time.Millisecond })
	r := c.Do(context.Background(), Request{Prompt: "x"}, newClock())
	if r.ErrorClass != ErrTimeout || r.HTTPStatus != 0 || !strings.Contains(r.ErrorMessage, "no response headers for 100ms") {
		t.Fatalf("%q %q", r.ErrorClass, r.ErrorMessage)
	}
}

// A stream that keeps sending, with gaps under the stall timeout, lasts as long as it needs:
// the watch re-arms rather than firing at a fixed time.
func TestStallTimeoutFlowing(t *testing.T) {
	srv := httptest.NewServer(vllmChat(8, 40*time.Millisecond, nil))
	defer srv.Close()
	c := newClient(t, srv.URL, APIChat, func(c *Config) { c.StallTimeout = 150 * time.Millisecond })
	r := c.Do(context.Background(), Request{Prompt: "x", MaxTokens: 8}, newClock())
	if !r.OK() || len(r.ChunkNS) != 8 {
		t.Fatalf("%q %q chunks %d", r.ErrorClass, r.ErrorMessage, len(r.ChunkNS))
	}
	if d := time.Duration(r.DoneNS - r.SentNS); d < 300*time.Millisecond {
		t.Fatalf("stream took only %v", d)
	}
}

// The whole-request timeout keeps its own message when it fires first.
func TestStallTimeoutVersusTimeout(t *testing.T) {
	srv := httptest.NewServer(vllmChat(20, 20*time.Millisecond, nil))
	defer srv.Close()
	c := newClient(t, srv.URL, APIChat, func(c *Config) {
		c.Timeout = 150 * time.Millisecond
		c.StallTimeout = 100 * time.Millisecond
	})
	r := c.Do(context.Background(), Request{Prompt: "x", MaxTokens: 20}, newClock())
	if r.ErrorClass != ErrTimeout || r.ErrorMessage != "no complete response within the per-request timeout" {
		t.Fatalf("%q %q", r.ErrorClass, r.ErrorMessage)
	}
}

// Ten thousand stalled watches each fire once, near their limit: one dormant timer apiece,
// nothing per read.
func TestStallWatchMany(t *testing.T) {
	const n, limit = 10000, 50 * time.Millisecond
	clock := newClock()
	var fired atomic.Int64
	done := make(chan struct{})
	start := clock()
	watches := make([]*stallWatch, n)
	for i := range watches {
		watches[i] = startStall(limit, clock, start, func(err error) {
			if err != errStalled {
				panic(fmt.Sprint("cause ", err))
			}
			if fired.Add(1) == n {
				close(done)
			}
		})
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%d of %d watches fired", fired.Load(), n)
	}
	if d := time.Duration(clock() - start); d < limit {
		t.Fatalf("fired after %v, limit %v", d, limit)
	}
	for _, w := range watches {
		w.stop()
	}
	time.Sleep(2 * limit)
	if f := fired.Load(); f != n {
		t.Fatalf("%d fires for %d watches", f, n)
	}
}

// A touched watch does not fire; a stopped one never does.
func TestStallWatchTouchAndStop(t *testing.T) {
	const limit = 60 * time.Millisecond
	clock := newClock()
	var fired atomic.Int64
	w := startStall(limit, clock, clock(), func(error) { fired.Add(1) })
	for i := 0; i < 6; i++ {
		time.Sleep(limit / 3)
		w.touch(clock())
	}
	if fired.Load() != 0 {
		t.Fatal("fired while touched")
	}
	w.stop()
	time.Sleep(2 * limit)
	if fired.Load() != 0 {
		t.Fatal("fired after stop")
	}
}
