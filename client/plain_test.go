package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// connCounter serves h and counts the connections the server accepted and the most open at once.
type connCounter struct {
	opened, open, peak atomic.Int64
}

func (c *connCounter) state(_ net.Conn, s http.ConnState) {
	switch s {
	case http.StateNew:
		c.opened.Add(1)
		if n := c.open.Add(1); n > c.peak.Load() {
			c.peak.Store(n)
		}
	case http.StateClosed, http.StateHijacked:
		c.open.Add(-1)
	}
}

func plainServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *connCounter) {
	t.Helper()
	return plainServerIdle(t, h, 0)
}

// plainServerIdle is plainServer closing connections idle for idle (0: the default).
func plainServerIdle(t *testing.T, h http.HandlerFunc, idle time.Duration) (*httptest.Server, *connCounter) {
	t.Helper()
	var cc connCounter
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = cc.state
	srv.Config.IdleTimeout = idle
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &cc
}

func plainClient(maxConns int) (*http.Client, *plainTransport) {
	tr := newTransport(maxConns, &tls.Config{InsecureSkipVerify: true}).(*plainTransport)
	return &http.Client{Transport: tr}, tr
}

func get(t *testing.T, c *http.Client, ctx context.Context, method, url string, body io.Reader) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, url, err)
	}
	return resp.StatusCode, string(b)
}

// A connection carries request after request, whatever the answer's framing (length, chunked,
// none for HEAD and 204); a request body of unknown length goes chunked, by net/http's
// transport (on a connection of its own, reused as well).
func TestPlainTransportReuses(t *testing.T) {
	srv, cc := plainServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/chunked":
			w.Write([]byte("part one "))
			w.(http.Flusher).Flush()
			w.Write(b)
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		default:
			fmt.Fprintf(w, "%s %s %d", r.Method, r.URL.Path, len(b))
		}
	})
	c, _ := plainClient(0)
	ctx := context.Background()
	for i := range 50 {
		if code, body := get(t, c, ctx, "POST", srv.URL+"/x", strings.NewReader("hello")); code != 200 || body != "POST /x 5" {
			t.Fatalf("request %d: %d %q", i, code, body)
		}
		if code, body := get(t, c, ctx, "POST", srv.URL+"/chunked", io.MultiReader(strings.NewReader("a"), strings.NewReader("b"))); code != 200 || body != "part one ab" {
			t.Fatalf("chunked %d: %d %q", i, code, body)
		}
		if code, _ := get(t, c, ctx, "HEAD", srv.URL+"/x", nil); code != 200 {
			t.Fatalf("head %d: %d", i, code)
		}
		if code, _ := get(t, c, ctx, "GET", srv.URL+"/empty", nil); code != 204 {
			t.Fatalf("204 %d: %d", i, code)
		}
	}
	if n := cc.opened.Load(); n != 2 {
		t.Errorf("200 sequential requests opened %d connections, want 2 (one each transport)", n)
	}
}

// With a cap, no more connections are open at once than it allows, and every request is answered.
func TestPlainTransportCap(t *testing.T) {
	srv, cc := plainServer(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(5 * time.Millisecond)
		io.WriteString(w, "ok")
	})
	c, _ := plainClient(4)
	var wg sync.WaitGroup
	var failed atomic.Int64
	for range 40 {
		wg.Go(func() {
			req, _ := http.NewRequest("GET", srv.URL, nil)
			resp, err := c.Do(req)
			if err != nil {
				failed.Add(1)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		})
	}
	wg.Wait()
	if failed.Load() != 0 || cc.peak.Load() > 4 || cc.opened.Load() > 4 {
		t.Errorf("failed %d, %d connections opened, at most %d at once: want 0, <= 4, <= 4", failed.Load(), cc.opened.Load(), cc.peak.Load())
	}
	// A request that waits for a connection gives up with its context.
	hold, _ := http.NewRequest("GET", srv.URL, nil)
	var held []*http.Response
	for range 4 {
		resp, err := c.Do(hold)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, resp)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
	if _, err := c.Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a fifth request at a cap of 4: %v, want the context's deadline", err)
	}
	for _, r := range held {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	if code, body := get(t, c, context.Background(), "GET", srv.URL, nil); code != 200 || body != "ok" {
		t.Errorf("after the held ones came back: %d %q", code, body)
	}
}

// A connection the server closed while it sat idle is not used; one whose body was left
// unread is closed, not reused; "Connection: close" is honoured; a canceled request returns
// at once with the context's error.
func TestPlainTransportClosedConnections(t *testing.T) {
	release := make(chan struct{})
	srv, cc := plainServerIdle(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/close":
			w.Header().Set("Connection", "close")
		case "/long":
			w.Write([]byte(strings.Repeat("x", 1<<20)))
			return
		case "/stall":
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		io.WriteString(w, "ok")
	}, 20*time.Millisecond)
	c, _ := plainClient(0)
	ctx := context.Background()
	get(t, c, ctx, "GET", srv.URL, nil)
	time.Sleep(150 * time.Millisecond) // the server closes the idle connection
	if code, body := get(t, c, ctx, "GET", srv.URL, nil); code != 200 || body != "ok" {
		t.Fatalf("after the server's idle close: %d %q", code, body)
	}
	before := cc.opened.Load()
	req, _ := http.NewRequest("GET", srv.URL+"/long", nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Read(make([]byte, 10))
	resp.Body.Close()
	get(t, c, ctx, "GET", srv.URL+"/close", nil)
	get(t, c, ctx, "GET", srv.URL, nil)
	if n := cc.opened.Load() - before; n != 2 {
		t.Errorf("an unread body and a Connection: close answer: %d new connections after them, want 2", n)
	}

	ctx2, cancel := context.WithCancel(context.Background())
	req, _ = http.NewRequestWithContext(ctx2, "GET", srv.URL+"/stall", nil)
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	_, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil || time.Since(start) > time.Second {
		t.Errorf("canceled stream: err %v after %v, want an error at once", err, time.Since(start))
	}
	close(release)
	if code, body := get(t, c, ctx, "GET", srv.URL, nil); code != 200 || body != "ok" {
		t.Errorf("after a canceled stream: %d %q", code, body)
	}
}

// The trace sees the connection (new, then reused) and the request's last byte written.
func TestPlainTransportTrace(t *testing.T) {
	srv, _ := plainServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	c, _ := plainClient(0)
	var reused []bool
	var wrote int
	trace := &httptrace.ClientTrace{
		GotConn:      func(i httptrace.GotConnInfo) { reused = append(reused, i.Reused) },
		WroteRequest: func(i httptrace.WroteRequestInfo) { wrote++ },
	}
	ctx := httptrace.WithClientTrace(context.Background(), trace)
	get(t, c, ctx, "POST", srv.URL, strings.NewReader("{}"))
	get(t, c, ctx, "POST", srv.URL, strings.NewReader("{}"))
	if fmt.Sprint(reused) != "[false true]" || wrote != 2 {
		t.Errorf("reused %v, wrote %d: want [false true], 2", reused, wrote)
	}
}

// https goes through net/http's transport, with the client's TLS settings.
func TestPlainTransportFallsBackForTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.Proto) }))
	defer srv.Close()
	c, _ := plainClient(0)
	if code, body := get(t, c, context.Background(), "GET", srv.URL, nil); code != 200 || !strings.HasPrefix(body, "HTTP/") {
		t.Errorf("https: %d %q", code, body)
	}
}

// The direct path sends what net/http's would: the same headers and body, the key, the id;
// and it is taken only where it applies (no cap, no stall timeout, plain http).
func TestDirectSend(t *testing.T) {
	var mu sync.Mutex
	var got []http.Header
	var bodies []string
	srv, cc := plainServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		h := r.Header.Clone()
		h.Set("Host", r.Host)
		h.Set("X-Path", r.URL.Path)
		got, bodies = append(got, h), append(bodies, string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		sse(w, `{"choices":[{"text":"a","finish_reason":"stop"}],"usage":{"prompt_tokens":2,"completion_tokens":1}}`)
		sse(w, "[DONE]")
	})
	c := newClient(t, srv.URL, APICompletions, nil)
	if c.direct == nil {
		t.Fatal("no direct path for a plain-http endpoint")
	}
	for i := range 3 {
		r := c.Do(context.Background(), Request{Prompt: "hi", MaxTokens: 1, ID: fmt.Sprint("req-", i)}, newClock())
		if !r.OK() || r.WrittenNS < r.SentNS || r.WrittenNS == 0 {
			t.Fatalf("request %d: %q %q, sent %d written %d", i, r.ErrorClass, r.ErrorMessage, r.SentNS, r.WrittenNS)
		}
	}
	host := strings.TrimPrefix(srv.URL, "http://")
	for i, h := range got {
		want := map[string]string{"Host": host, "X-Path": "/v1/completions", "Content-Type": "application/json",
			"Accept": "text/event-stream", "Authorization": "Bearer sk-test-secret", "X-Request-Id": fmt.Sprint("req-", i),
			"Content-Length": fmt.Sprint(len(bodies[i]))}
		for k, v := range want {
			if h.Get(k) != v {
				t.Errorf("request %d: %s %q, want %q", i, k, h.Get(k), v)
			}
		}
		if !strings.Contains(bodies[i], `"prompt":"hi"`) {
			t.Errorf("request %d: body %s", i, bodies[i])
		}
	}
	if n := cc.opened.Load(); n != 1 {
		t.Errorf("3 requests opened %d connections, want 1", n)
	}
	for name, mut := range map[string]func(*Config){
		"a connection cap":  func(c *Config) { c.MaxConns = 4 },
		"a stall timeout":   func(c *Config) { c.StallTimeout = time.Second },
		"an https endpoint": func(c *Config) { c.BaseURL = strings.Replace(c.BaseURL, "http:", "https:", 1) },
	} {
		if c := newClient(t, srv.URL, APICompletions, mut); c.direct != nil {
			t.Errorf("direct path taken with %s", name)
		}
	}
}
