package client

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Preconnect opens exactly n connections, and n requests sent at once afterwards reuse them:
// the server sees no new connection once the run starts.
func TestPreconnect(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(vllmChat(3, 0, nil))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c := newClient(t, srv.URL, APIChat, nil)
	opened, err := c.Preconnect(context.Background(), 8)
	if err != nil || opened != 8 || conns.Load() != 8 {
		t.Fatalf("opened %d (server saw %d), err %v: want 8", opened, conns.Load(), err)
	}
	var wg sync.WaitGroup
	clock := newClock()
	for range 8 {
		wg.Go(func() {
			if r := c.Do(context.Background(), Request{Prompt: "hi", MaxTokens: 3}, clock); !r.OK() {
				t.Errorf("%s: %s", r.ErrorClass, r.ErrorMessage)
			}
		})
	}
	wg.Wait()
	if got := conns.Load(); got != 8 {
		t.Fatalf("the server saw %d connections after 8 concurrent requests on 8 preconnected ones", got)
	}
}

// An endpoint nobody listens on: Preconnect says so, naming the URL, and opens none.
func TestPreconnectRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := newClient(t, "http://"+addr, APIChat, func(c *Config) { c.Timeout = time.Second })
	if n, err := c.Preconnect(context.Background(), 4); err == nil || n != 0 {
		t.Fatalf("opened %d, err %v", n, err)
	}
}
