package sim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// startServer runs a simulator for cfg behind a real HTTP server on 127.0.0.1.
func startServer(t testing.TB, cfg Config) (*Server, string) {
	t.Helper()
	s := New(cfg)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(func() {
		s.Close()
		hs.Close()
	})
	return s, hs.URL
}

// sseResult is what a client saw of one streamed answer.
type sseResult struct {
	status int
	body   []byte // non-SSE body (errors)
	events [][]byte
	done   bool
	ttft   time.Duration // from sending to the first data event
	err    error         // read error (a cut stream)
}

// post sends body to url+path and reads the SSE stream event by event.
func post(t testing.TB, url, path string, body any) sseResult {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	resp, err := http.Post(url+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	res := sseResult{status: resp.StatusCode}
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		res.body, res.err = io.ReadAll(resp.Body)
		return res
	}
	r := bufio.NewReader(resp.Body)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			if err != io.EOF || len(line) > 0 || !res.done {
				res.err = fmt.Errorf("reading stream: %w", err)
			}
			return res
		}
		line = bytes.TrimRight(line, "\n")
		if len(line) == 0 {
			continue
		}
		data, ok := bytes.CutPrefix(line, []byte("data: "))
		if !ok {
			res.err = fmt.Errorf("not an SSE data line: %q", line)
			return res
		}
		if bytes.Equal(data, []byte("[DONE]")) {
			res.done = true
			continue
		}
		if len(res.events) == 0 {
			res.ttft = time.Since(start)
		}
		res.events = append(res.events, append([]byte(nil), data...))
	}
}

// fastConfig is a cost model quick enough for tests.
func fastConfig() Config {
	cfg := DefaultConfig()
	cfg.StepBase = time.Millisecond
	cfg.StepPerSeq = 0
	cfg.StepPerKVToken = 0
	cfg.PrefillPerToken = time.Microsecond
	cfg.Jitter = 0
	return cfg
}

func ids(start, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = start + i
	}
	return out
}

// httptestRecorder serves one completions request in memory and returns its status.
func httptestRecorder(h http.Handler, body string) int {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/v1/completions", strings.NewReader(body))
	h.ServeHTTP(rec, req)
	return rec.Code
}

func jsonBody(v any) io.Reader {
	b, _ := json.Marshal(v)
	return bytes.NewReader(b)
}

// observed is what a client saw of one request, with the arrival time of each event, for the
// fault tests that must tell a stall's place apart.
type observed struct {
	doErr   error // the request failed before a response (a cut before the headers)
	status  int
	header  http.Header
	sse     bool
	body    []byte          // the non-SSE body
	events  [][]byte        // SSE data frames, [DONE] excluded
	at      []time.Duration // each event's arrival, from sending
	done    bool
	headers time.Duration // when the response headers arrived
	end     time.Duration // when the body ended
	readErr error         // the body ended in an error (a cut stream)
}

// send posts body to url+path with id as X-Request-Id (none when empty) and reads everything.
func send(t testing.TB, ctx context.Context, url, path, id string, body any) observed {
	t.Helper()
	return do(newPost(t, ctx, url, path, id, body))
}

// newPost builds the request send sends, so that a test can send it from another goroutine.
func newPost(t testing.TB, ctx context.Context, url, path, id string, body any) *http.Request {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, "POST", url+path, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if id != "" {
		req.Header.Set("X-Request-Id", id)
	}
	return req
}

// do sends req and reads everything.
func do(req *http.Request) observed {
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return observed{doErr: err}
	}
	defer resp.Body.Close()
	o := observed{status: resp.StatusCode, header: resp.Header, headers: time.Since(start)}
	o.sse = resp.Header.Get("Content-Type") == "text/event-stream"
	if !o.sse {
		o.body, o.readErr = io.ReadAll(resp.Body)
		o.end = time.Since(start)
		return o
	}
	o.readSSE(resp.Body, start)
	return o
}

// readSSE reads data frames until the body ends.
func (o *observed) readSSE(body io.Reader, start time.Time) {
	r := bufio.NewReader(body)
	defer func() { o.end = time.Since(start) }()
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			if err != io.EOF || len(line) > 0 {
				o.readErr = err
			}
			return
		}
		data, ok := bytes.CutPrefix(bytes.TrimRight(line, "\n"), []byte("data: "))
		switch {
		case !ok:
		case string(data) == "[DONE]":
			o.done = true
		default:
			o.events = append(o.events, append([]byte(nil), data...))
			o.at = append(o.at, time.Since(start))
		}
	}
}

// outcome names the fault a client would conclude from o, with a stall being an answer that
// took at least stall somewhere (before its first byte, or after its first chunk).
func (o observed) outcome(stall time.Duration) Fault {
	switch {
	case o.doErr != nil || o.readErr != nil:
		return FaultBreak
	case o.status == http.StatusInternalServerError:
		return FaultError
	case o.status == http.StatusTooManyRequests:
		return FaultRateLimit
	case o.status != http.StatusOK:
		return Fault(-o.status) // no fault names it: fails any comparison
	case o.sse && !o.framesAreJSON():
		return FaultGarbage
	case o.sse && !o.done:
		return FaultBreak
	case !o.sse && !json.Valid(o.body):
		return FaultGarbage
	case o.end >= stall:
		return FaultStall
	}
	return FaultNone
}

// framesAreJSON reports whether every data frame is JSON.
func (o observed) framesAreJSON() bool {
	for _, e := range o.events {
		if !json.Valid(e) {
			return false
		}
	}
	return true
}
