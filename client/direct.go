package client

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// direct is the send path for a plain-http endpoint reached without a proxy, a connection
// cap or a stall timeout: the request is written from bytes laid out once per API (request
// line, Host, type, the key, the Messages API's anthropic-version and x-api-key) plus its id,
// length and body, on a pooled connection of the
// plain transport, with nothing allocated or locked between the send's start and its last
// byte leaving but the pool's pop. The per-request contexts (timeout, the drain's and the
// caller's causes) are made after the write, where their cost no longer delays it; a dial is
// made under them. What it reads back is an *http.Response as net/http's path gives it, so the
// judgement after it is the same.
type direct struct {
	pool  *connPool
	addr  string         // host:port
	heads [nKinds][]byte // by API: "POST <path> HTTP/1.1\r\nHost: ...\r\n..." up to the varying headers
}

// newDirect is the direct path for base, nil when base cannot take it.
func newDirect(t *plainTransport, cfg Config, base *url.URL, urls *[nKinds]string, auth string) *direct {
	if cfg.MaxConns > 0 || cfg.StallTimeout > 0 || base.Scheme != "http" {
		return nil
	}
	probe := &http.Request{URL: base, Header: http.Header{}}
	if p, err := http.ProxyFromEnvironment(probe); err != nil || p != nil {
		return nil
	}
	d := &direct{pool: t.pool, addr: canonicalAddr(probe)}
	for i, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil || !validHeaderValue(u.Host) {
			return nil
		}
		h := "POST " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\nUser-Agent: Go-http-client/1.1\r\nContent-Type: application/json\r\n"
		if auth != "" {
			h += "Authorization: " + auth + "\r\n"
		}
		if apiKind(i) == kindMessages {
			h += "Anthropic-Version: " + anthropicVersion + "\r\n"
			if cfg.APIKey != "" {
				h += "X-Api-Key: " + cfg.APIKey + "\r\n"
			}
		}
		d.heads[i] = []byte(h)
	}
	return d
}

// send writes one request (body already built, k's judging fields set) to url and reads
// the response's headers. It sets r.SentNS when the send starts and k.written when the last
// byte has left; k's contexts exist on return, whatever the outcome.
func (d *direct) send(c *Client, k *call, url, id string, body []byte, r *Response) (*http.Response, error) {
	r.SentNS = k.clock()
	pc := d.pool.idleConn(d.addr)
	if pc == nil {
		c.arm(k) // a dial is bounded by the request's own timeout
		var err error
		if pc, err = d.pool.get(k.rctx, d.addr); err != nil {
			return nil, fmt.Errorf("POST %q: %w", url, err)
		}
	}
	resp, err := d.exchange(c, k, pc, url, id, body)
	// used counts this exchange too: more than 1 is a connection that had carried another.
	if err != nil && resendable(err, pc.used > 1) && k.ctx.Err() == nil && k.rctx.Err() == nil {
		first := err
		if pc, err = d.pool.redial(k.rctx, pc); err != nil {
			return nil, fmt.Errorf("POST %q: the server closed a kept-alive connection before answering (%w); dialing again: %w", url, first, err)
		}
		r.Resent = true
		resp, err = d.exchange(c, k, pc, url, id, body)
	}
	if err != nil {
		d.pool.discard(pc)
		return nil, fmt.Errorf("POST %q: %w", url, err)
	}
	return resp, nil
}

// exchange writes the request on pc and reads the response's headers; on an error the caller
// discards pc. k's contexts exist on return, whatever the outcome.
func (d *direct) exchange(c *Client, k *call, pc *plainConn, url, id string, body []byte) (*http.Response, error) {
	pc.used++
	d.lay(pc, k, id, body)
	// The last byte is handed to the kernel now, which is when net/http's WroteRequest fires
	// too. On loopback the write call goes on to run the server's receive path and wake it,
	// and returns 10 µs later at the median but 80-180 µs later at p90-p99 on this 2-vCPU
	// machine (the server's kernel receive stamp, replay sim --arrival-log, lies a few µs
	// after this instant): time the server's side spends, not the send.
	at := k.clock()
	err := pc.bw.Flush()
	if err == nil {
		k.written.Store(at)
	}
	if k.rctx == nil {
		c.arm(k)
	}
	stop := cutOnDone(k.rctx, pc)
	if err != nil {
		stop()
		return nil, noAnswerError{err}
	}
	resp, err := readResponse(pc.br, nil, nil)
	if err != nil {
		stop()
		return nil, err
	}
	return d.pool.body(resp, pc, stop, !resp.Close), nil
}

// lay writes the request into pc's buffer, for one flush (a body larger than the buffer goes
// out in parts as it is written, the last at the flush).
func (d *direct) lay(pc *plainConn, k *call, id string, body []byte) {
	api, streamed := k.api, k.streamed
	bw := pc.bw
	bw.Write(d.heads[api])
	if streamed {
		bw.WriteString("Accept: text/event-stream\r\n")
	} else {
		bw.WriteString("Accept: application/json\r\n")
	}
	if id != "" {
		bw.WriteString("X-Request-Id: ")
		bw.WriteString(id)
		bw.WriteString("\r\n")
	}
	for _, h := range k.headers { // checked by bodyOf: a valid name and value
		bw.WriteString(h.Name)
		bw.WriteString(": ")
		bw.WriteString(h.Value)
		bw.WriteString("\r\n")
	}
	// The varying headers are appended into the buffer's free space (AvailableBuffer), so
	// nothing escapes: a stack array handed to Write would be moved to the heap per request.
	b := bw.AvailableBuffer()
	if tp := &k.trace; !tp.IsZero() {
		b = append(b, "Traceparent: "...)
		b = append(tp.appendValue(b), "\r\n"...)
	}
	b = append(b, "Content-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	bw.Write(b)
	bw.WriteString("\r\n\r\n")
	bw.Write(body)
}
