package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"time"
)

// preconnectWait bounds how long Preconnect holds its connections busy waiting for the others:
// a server that accepts slowly still leaves the ones that were opened.
const preconnectWait = 5 * time.Second

// Preconnect opens n connections to the endpoint before the first send and leaves them idle in
// the pool, so the first requests of a run, and a burst that needs many connections at once,
// do not pay a connect (and TLS handshake) the server sees as lateness. It sends n HEADs of
// the API root (e.g. /v1) at once, each holding the connection it got until every one has its
// own (a connection held by a request is busy, so each needs a new one); the status does not
// matter (a 404 keeps the connection as well), and the root is no route an engine counts or
// computes for. It returns how many connections it opened; an error only when none could be.
func (c *Client) Preconnect(ctx context.Context, n int) (int, error) {
	if n <= 0 {
		return 0, nil
	}
	url := strings.TrimSuffix(c.oa.BaseURL, "/")
	ctx, cancel := context.WithTimeout(ctx, 2*preconnectWait)
	defer cancel()
	var (
		mu      sync.Mutex
		opened  int
		firstEr error
		all     = make(chan struct{})
		held    sync.WaitGroup
		wg      sync.WaitGroup
	)
	held.Add(n)
	go func() { held.Wait(); close(all) }()
	for range n {
		wg.Go(func() {
			var once sync.Once
			arrived := func() { once.Do(held.Done) }
			defer arrived() // a request that failed before its connection counts as arrived
			trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
				if !info.Reused {
					mu.Lock()
					opened++
					mu.Unlock()
				}
				arrived()
				select { // hold this connection until every request has one
				case <-all:
				case <-time.After(preconnectWait):
				case <-ctx.Done():
				}
			}}
			req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodHead, url, nil)
			if err == nil {
				if c.auth != "" {
					req.Header.Set("Authorization", c.auth)
				}
				var resp *http.Response
				if resp, err = c.oa.HTTPClient.Do(req); err == nil {
					_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
					resp.Body.Close()
				}
			}
			if err != nil {
				mu.Lock()
				if firstEr == nil {
					firstEr = err
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if opened == 0 && firstEr != nil {
		return 0, fmt.Errorf("client: preconnect to %s: %w", url, redact(firstEr, c.key))
	}
	return opened, nil
}

// redact removes key from err's text (a server may quote a credential back).
func redact(err error, key string) error {
	if key == "" || !strings.Contains(err.Error(), key) {
		return err
	}
	return fmt.Errorf("%s", strings.ReplaceAll(err.Error(), key, "[api key]"))
}
