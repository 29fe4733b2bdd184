package client

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// Request.Trace arrives as one traceparent header in W3C Trace Context's version-00 form,
// sampled, on both transports (the client's own HTTP/1.1 pool for http, net/http's for https);
// the zero value sends none.
func TestTraceParent(t *testing.T) {
	tp := TraceParent{}
	for i := range tp.TraceID {
		tp.TraceID[i] = byte(0xa0 + i)
	}
	for i := range tp.SpanID {
		tp.SpanID[i] = byte(i + 1)
	}
	const want = "00-a0a1a2a3a4a5a6a7a8a9aaabacadaeaf-0102030405060708-01"
	if tp.String() != want {
		t.Fatalf("String() = %q", tp.String())
	}
	for _, tls := range []bool{false, true} {
		var got atomic.Value
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got.Store(r.Header.Values("Traceparent"))
			vllmChat(1, 0, nil)(w, r)
		})
		srv := httptest.NewUnstartedServer(h)
		if tls {
			srv.StartTLS()
		} else {
			srv.Start()
		}
		c := newClient(t, srv.URL, APIChat, func(c *Config) { c.Insecure = tls })
		if r := c.Do(context.Background(), Request{Prompt: "x", ID: "1", Trace: tp}, newClock()); !r.OK() {
			t.Fatal(r.ErrorMessage)
		}
		if v := got.Load().([]string); len(v) != 1 || v[0] != want {
			t.Errorf("tls %v: traceparent %q", tls, v)
		}
		if r := c.Do(context.Background(), Request{Prompt: "x", ID: "2"}, newClock()); !r.OK() {
			t.Fatal(r.ErrorMessage)
		}
		if v := got.Load().([]string); len(v) != 0 {
			t.Errorf("tls %v: traceparent %q without a trace", tls, v)
		}
		srv.Close()
	}
}

// Laying a request with its traceparent out on the connection's buffer allocates nothing,
// as without: the header is formatted on the stack.
func TestTraceParentNoAlloc(t *testing.T) {
	d := &direct{}
	pc := &plainConn{bw: bufio.NewWriterSize(io.Discard, 64<<10)}
	body := []byte(`{"model":"m"}`)
	k := &call{api: kindChat, streamed: true}
	k.trace.TraceID[0], k.trace.SpanID[0] = 1, 1
	if n := testing.AllocsPerRun(200, func() { d.lay(pc, k, "42", body) }); n != 0 {
		t.Errorf("%v allocations per request laid with a traceparent", n)
	}
	var buf bytes.Buffer
	pc.bw.Reset(&buf)
	d.lay(pc, k, "42", body)
	_ = pc.bw.Flush()
	if !strings.Contains(buf.String(), "\r\nTraceparent: 00-01000000000000000000000000000000-0100000000000000-01\r\n") {
		t.Errorf("request laid out as %q", buf.String())
	}
}
