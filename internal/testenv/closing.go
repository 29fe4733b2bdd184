package testenv

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// ClosingServer is an HTTP/1.1 server on loopback that closes every connection after one
// response, without saying so: no "Connection: close", the way llama.cpp's llama-server ends
// a connection that carried a streamed answer (its chunked content provider reports the end
// of the stream as a cancelled write, and cpp-httplib closes; ggml-org/llama.cpp
// tools/server/server-http.cpp, process_handler_response). A client that reuses the
// connection writes its next request into a socket that is about to close.
//
// After the response it waits Linger before closing, reading nothing more: a request the
// client wrote meanwhile stays unread in the kernel's buffer and the close answers it with a
// reset, so the server provably never processed it (0: close at once, the client may or may
// not see the close before it reuses the connection).
type ClosingServer struct {
	URL    string
	Linger time.Duration
	// Served counts the requests the server read and answered, Conns the connections it
	// accepted.
	Served, Conns atomic.Int64

	ln      net.Listener
	respond func(r *http.Request, body []byte) (status int, contentType, payload string)
	wg      sync.WaitGroup
}

// NewClosingServer starts a ClosingServer whose answers respond gives (for a request and its
// body: the status, the Content-Type and the payload, sent with a Content-Length); it stops
// when t ends.
func NewClosingServer(t testing.TB, linger time.Duration, respond func(r *http.Request, body []byte) (int, string, string)) *ClosingServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &ClosingServer{URL: "http://" + ln.Addr().String(), Linger: linger, ln: ln, respond: respond}
	s.wg.Add(1)
	go s.accept()
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return s
}

func (s *ClosingServer) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.Conns.Add(1)
		s.wg.Add(1)
		go s.serveOne(c)
	}
}

// serveOne answers the connection's first request, then closes it after Linger.
func (s *ClosingServer) serveOne(c net.Conn) {
	defer s.wg.Done()
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err != nil {
		return
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return
	}
	status, ctype, payload := s.respond(req, body)
	s.Served.Add(1)
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s",
		status, http.StatusText(status), ctype, len(payload), payload)
	if _, err := io.WriteString(c, b.String()); err != nil {
		return
	}
	time.Sleep(s.Linger)
}

// NewClosingHandlerServer is a ClosingServer answering what h answers (recorded whole, so a
// stream arrives in one piece): any handler a test already has, behind a server that closes.
func NewClosingHandlerServer(t testing.TB, linger time.Duration, h http.Handler) *ClosingServer {
	t.Helper()
	return NewClosingServer(t, linger, func(r *http.Request, body []byte) (int, string, string) {
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec.Code, rec.Header().Get("Content-Type"), rec.Body.String()
	})
}
