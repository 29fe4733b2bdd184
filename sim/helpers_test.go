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
