package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// Request.ID arrives as X-Request-Id; no ID sends no header.
func TestRequestID(t *testing.T) {
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Values("X-Request-Id"))
		vllmChat(1, 0, nil)(w, r)
	}))
	defer srv.Close()
	c := newClient(t, srv.URL, APIChat, nil)
	if r := c.Do(context.Background(), Request{Prompt: "x", ID: "run7-000042"}, newClock()); !r.OK() {
		t.Fatal(r.ErrorMessage)
	}
	if ids := got.Load().([]string); len(ids) != 1 || ids[0] != "run7-000042" {
		t.Fatalf("X-Request-Id %q", ids)
	}
	if r := c.Do(context.Background(), Request{Prompt: "x"}, newClock()); !r.OK() {
		t.Fatal(r.ErrorMessage)
	}
	if ids := got.Load().([]string); len(ids) != 0 {
		t.Fatalf("X-Request-Id %q without an ID", ids)
	}
}

// A request that cannot be built (an ID that is no header value) is the client's failure and
// never reaches the server.
func TestRequestIDInvalid(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	r := newClient(t, srv.URL, APIChat, nil).Do(context.Background(), Request{Prompt: "x", ID: "a\r\nX-Evil: 1"}, newClock())
	if r.ErrorClass != ErrClient || r.HTTPStatus != 0 || r.SentNS == 0 || r.DoneNS != r.SentNS ||
		!strings.Contains(r.ErrorMessage, "not a valid header value") || !strings.HasSuffix(r.ErrorMessage, "(a failure on this machine, not the endpoint's)") {
		t.Fatalf("%+v", r)
	}
	if hits.Load() != 0 {
		t.Fatal("the server was reached")
	}
}
