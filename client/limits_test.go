package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
)

// dialError wraps e as net/http reports a failed dial: url.Error, net.OpError, SyscallError.
func dialError(e error) error {
	return &url.Error{Op: "Post", URL: "http://10.0.0.1:8000/v1/chat/completions", Err: &net.OpError{
		Op: "dial", Net: "tcp", Err: os.NewSyscallError("socket", e)}}
}

// This machine's limits are found anywhere in an error chain, and nothing else is.
func TestClientLimit(t *testing.T) {
	if len(limitErrnos) == 0 {
		t.Skip("no errno values on this OS")
	}
	for _, e := range limitErrnos {
		if !clientLimit(dialError(e)) || !clientLimit(fmt.Errorf("reading: %w", e)) {
			t.Errorf("%v not recognized", e)
		}
	}
	for _, err := range []error{nil, errors.New("too many open files"), dialError(errors.New("connection refused"))} {
		if clientLimit(err) {
			t.Errorf("%v taken for a client limit", err)
		}
	}
}

// A limit hit while connecting or reading is class client, said to be this machine's, and
// the note survives a long error.
func TestClientLimitClass(t *testing.T) {
	if len(limitErrnos) == 0 {
		t.Skip("no errno values on this OS")
	}
	ctx := context.Background()
	k := call{ctx: ctx, rctx: ctx}
	for _, err := range []error{dialError(limitErrnos[0]), fmt.Errorf("%s: %w", strings.Repeat("x", 1000), limitErrnos[0])} {
		class, msg := k.cut(ErrConnect, err, err.Error(), &Response{})
		if class != ErrClient || !strings.HasPrefix(msg, "client limit: ") ||
			!strings.HasSuffix(msg, "(this machine's limit, not the endpoint's)") || len(msg) > maxMessage+len("…") {
			t.Fatalf("%q %q", class, msg)
		}
	}
	// The caller's cancellation still comes first.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if class, _ := (&call{ctx: cctx, rctx: cctx}).cut(ErrConnect, dialError(limitErrnos[0]), "", &Response{}); class != ErrCanceled {
		t.Fatalf("class %q", class)
	}
}

// errDoer fails every request with err; failReader serves body, then fails with err.
type errDoer struct{ err error }

func (d errDoer) Do(*http.Request) (*http.Response, error) { return nil, d.err }

type failReader struct {
	body string
	err  error
}

func (r *failReader) Read(p []byte) (int, error) {
	if r.body == "" {
		return 0, r.err
	}
	n := copy(p, r.body)
	r.body = r.body[n:]
	return n, nil
}

// Through Do: a dial and a stream read that hit this machine's limits are class client.
func TestClientLimitDo(t *testing.T) {
	if len(limitErrnos) == 0 {
		t.Skip("no errno values on this OS")
	}
	c := newClient(t, "http://127.0.0.1:1", APIChat, nil)
	c.oa.HTTPClient = errDoer{dialError(limitErrnos[0])}
	if r := c.Do(context.Background(), Request{Prompt: "x"}, newClock()); r.ErrorClass != ErrClient || r.HTTPStatus != 0 {
		t.Fatalf("dial: %q %q", r.ErrorClass, r.ErrorMessage)
	}
	c.oa.HTTPClient = doerFunc(func(req *http.Request) (*http.Response, error) {
		body := &failReader{body: okChunk, err: &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", limitErrnos[0])}}
		return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(body), Request: req}, nil
	})
	r := c.Do(context.Background(), Request{Prompt: "x"}, newClock())
	if r.ErrorClass != ErrClient || len(r.ChunkNS) != 1 || !strings.Contains(r.ErrorMessage, "reading stream after 1 content chunks") {
		t.Fatalf("read: %q %q", r.ErrorClass, r.ErrorMessage)
	}
}

type doerFunc func(*http.Request) (*http.Response, error)

func (f doerFunc) Do(req *http.Request) (*http.Response, error) { return f(req) }
