package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// probeTimeout bounds each detection probe: an engine answers these from memory, so a slow
// answer is a missing one (a variable so tests can shorten it).
var probeTimeout = 2 * time.Second

// reply is one HTTP exchange: its status, headers and (bounded) body, or why there was none.
type reply struct {
	status int
	header http.Header
	body   []byte
	err    error
}

// ok reports a 2xx answer.
func (r reply) ok() bool { return r.err == nil && r.status/100 == 2 }

// describe is the exchange in a few words for evidence: "HTTP 404", "timed out after 2s",
// or the transport's error.
func (r reply) describe() string {
	switch {
	case r.err == nil:
		return fmt.Sprintf("HTTP %d", r.status)
	case errors.Is(r.err, context.DeadlineExceeded):
		return "no answer in time"
	}
	return r.err.Error()
}

// send does one request with a JSON body (nil for none) and reads at most limit bytes back.
func send(ctx context.Context, c *http.Client, method, url string, body []byte, limit int64) reply {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return reply{err: err}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/plain;q=0.9, */*;q=0.5")
	// net/http's transport may send a probe or a reset again when the server closed the reused
	// connection before a byte of answer (no value: not sent on the wire); replay's own
	// transport applies that rule to every request (client/resend.go).
	req.Header["X-Idempotency-Key"] = nil
	resp, err := c.Do(req)
	if err != nil {
		return reply{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	return reply{status: resp.StatusCode, header: resp.Header, body: b, err: err}
}

// get is a probe's GET, bounded by probeTimeout.
func get(ctx context.Context, c *http.Client, url string, limit int64) reply {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	return send(ctx, c, http.MethodGet, url, nil, limit)
}

// snippet is the start of a body on one line, for messages.
func snippet(b []byte) string {
	r := []rune(strings.Join(strings.Fields(string(b)), " "))
	if len(r) > 160 {
		return string(r[:160]) + "…"
	}
	return string(r)
}

// clientOr is c, or a default client when the caller passed none.
func clientOr(c *http.Client) *http.Client {
	if c == nil {
		return http.DefaultClient
	}
	return c
}
