package client

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"
)

// plainTransport carries plain-http requests over HTTP/1.1 connections it pools itself, and
// does the whole exchange on the caller's goroutine: the request is written by the goroutine
// that sends it and the response read by the one that waits for it. net/http's Transport
// hands each request to a connection's writing goroutine and each response from its reading
// one, two wake-ups between a send's due time and its last byte leaving (and between a
// chunk's arrival and its timestamp), which a loaded 2-core machine spends tens to hundreds
// of microseconds on. Anything else (https, a proxy from the environment, another scheme)
// goes to fallback, net/http's.
type plainTransport struct {
	pool     *connPool
	fallback *http.Transport
}

func newPlainTransport(fallback *http.Transport, dial func(ctx context.Context, network, addr string) (net.Conn, error), maxConns int) *plainTransport {
	return &plainTransport{pool: newConnPool(dial, maxConns, fallback.IdleConnTimeout), fallback: fallback}
}

// RoundTrip sends req on a pooled connection, or on a new one, and returns once the
// response's headers are read; its body reads from the connection, which goes back to the
// pool when the body has been read to its end (or is closed if it is closed before).
func (t *plainTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !plainable(req) {
		return t.fallback.RoundTrip(req)
	}
	if p, err := http.ProxyFromEnvironment(req); err != nil || p != nil {
		return t.fallback.RoundTrip(req)
	}
	ctx := req.Context()
	trace := httptrace.ContextClientTrace(ctx)
	pc, err := t.pool.get(ctx, canonicalAddr(req))
	if err != nil {
		closeBody(req)
		return nil, err
	}
	resp, err := t.exchange(ctx, pc, req, trace)
	// used counts this exchange too: more than 1 is a connection that had carried another.
	if err != nil && resendable(err, pc.used > 1) && ctx.Err() == nil {
		return t.resend(ctx, pc, req, trace, err)
	}
	if err != nil {
		return nil, t.failed(ctx, pc, err)
	}
	return resp, nil
}

// failed closes pc, whose exchange failed with err, and says whether the caller's context
// ended it.
func (t *plainTransport) failed(ctx context.Context, pc *plainConn, err error) error {
	t.pool.discard(pc)
	if ctx.Err() != nil {
		return fmt.Errorf("%w (%w)", ctx.Err(), err)
	}
	return err
}

// resend sends req once more on a new connection in pc's slot, after the server closed pc, a
// reused connection, before answering a byte (resend.go's rule); the body is rewound with
// GetBody, and a request whose body cannot be is not resent.
func (t *plainTransport) resend(ctx context.Context, pc *plainConn, req *http.Request, trace *httptrace.ClientTrace, failed error) (*http.Response, error) {
	first := fmt.Errorf("the server closed a kept-alive connection before answering: %w", failed)
	if req.Body != nil && req.Body != http.NoBody {
		if req.GetBody == nil {
			t.pool.discard(pc)
			return nil, first
		}
		body, err := req.GetBody()
		if err != nil {
			t.pool.discard(pc)
			return nil, fmt.Errorf("%w; rewinding the body to send it again: %w", first, err)
		}
		r := *req
		r.Body = body
		req = &r
	}
	npc, err := t.pool.redial(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("%w; dialing again: %w", first, err)
	}
	resp, err := t.exchange(ctx, npc, req, trace)
	if err != nil {
		return nil, t.failed(ctx, npc, err)
	}
	return resp, nil
}

// exchange writes req and reads the response headers on pc; a canceled context cuts both
// short, and the body after them, by setting a deadline in the past.
func (t *plainTransport) exchange(ctx context.Context, pc *plainConn, req *http.Request, trace *httptrace.ClientTrace) (*http.Response, error) {
	if trace != nil && trace.GotConn != nil {
		trace.GotConn(httptrace.GotConnInfo{Conn: pc.conn, Reused: pc.used > 0})
	}
	pc.used++
	stop := cutOnDone(ctx, pc)
	err := writeRequest(pc.bw, req)
	// WroteRequest as net/http calls it: the last byte is in the buffer, handed to the
	// kernel by the flush (direct.go says why that instant is the send's).
	if trace != nil && trace.WroteRequest != nil {
		trace.WroteRequest(httptrace.WroteRequestInfo{Err: err})
	}
	if err == nil {
		if err = pc.bw.Flush(); err != nil {
			err = noAnswerError{unwrittenError{err}}
		}
	}
	if err != nil {
		stop()
		return nil, err
	}
	resp, err := readResponse(pc.br, req, trace)
	if err != nil {
		stop()
		return nil, err
	}
	return t.pool.body(resp, pc, stop, !resp.Close && !req.Close), nil
}

// cutOnDone cuts pc's exchange short when ctx is done, by setting a deadline in the past
// (which fails its reads and writes at once); the returned stop reports whether it had not.
func cutOnDone(ctx context.Context, pc *plainConn) (stop func() bool) {
	return context.AfterFunc(ctx, func() { pc.conn.SetDeadline(time.Unix(1, 0)) })
}

// body gives resp a body that hands pc back to the pool at its end (reuse permitting), or
// hands it back at once when there is no body.
func (p *connPool) body(resp *http.Response, pc *plainConn, stop func() bool, reuse bool) *http.Response {
	b := &plainBody{rc: resp.Body, pc: pc, pool: p, stop: stop, reuse: reuse}
	if resp.Body == http.NoBody {
		b.release()
		return resp
	}
	resp.Body = b
	return resp
}

// readResponse reads the final response to req, past any informational (1xx) ones.
func readResponse(br *bufio.Reader, req *http.Request, trace *httptrace.ClientTrace) (*http.Response, error) {
	if _, err := br.Peek(1); err != nil {
		return nil, noAnswerError{err} // not a byte of the response: resend.go's rule may apply
	}
	if trace != nil && trace.GotFirstResponseByte != nil {
		trace.GotFirstResponseByte()
	}
	for {
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols || resp.StatusCode < 100 {
			return resp, nil
		}
	}
}

// plainBody is a response body that hands its connection back when it has been read to its
// end, and closes it when the reader stops short (what is left of it would be the next
// response's start).
type plainBody struct {
	rc    io.ReadCloser
	pc    *plainConn
	pool  *connPool
	stop  func() bool
	reuse bool
	once  sync.Once
}

func (b *plainBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err == io.EOF {
		b.release()
	}
	return n, err
}

func (b *plainBody) Close() error {
	b.once.Do(func() {
		b.stop()
		b.pool.discard(b.pc)
	})
	return nil
}

// release returns the connection to the pool after the body's end, unless the context fired
// (its deadline is then in the past) or the response said the connection closes.
func (b *plainBody) release() {
	b.once.Do(func() {
		if b.stop() && b.reuse {
			b.pool.put(b.pc)
			return
		}
		b.pool.discard(b.pc)
	})
}

// canonicalAddr is req's host:port, port 80 when the URL has none.
func canonicalAddr(req *http.Request) string {
	if req.URL.Port() != "" {
		return req.URL.Host
	}
	return net.JoinHostPort(req.URL.Hostname(), "80")
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// CloseIdleConnections closes the pooled connections (http.Client calls it).
func (t *plainTransport) CloseIdleConnections() {
	t.pool.closeIdle()
	t.fallback.CloseIdleConnections()
}

// unwrittenError is a flush that failed after WroteRequest was called for it (which happens
// before the flush): the request did not leave, and Do forgets the time it was given.
type unwrittenError struct{ err error }

func (e unwrittenError) Error() string { return e.err.Error() }
func (e unwrittenError) Unwrap() error { return e.err }
