package sim

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// openStream starts a streamed completion of maxTokens under ctx, over a client with no
// keep-alive (so a cancel leaves no connection behind), and returns its data frames as they
// come; the channel closes when the body ends.
func openStream(t *testing.T, ctx context.Context, url string, maxTokens int) <-chan []byte {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "POST", url+"/v1/completions", jsonBody(tinyRequest(false, true, maxTokens)))
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	frames := make(chan []byte, maxTokens+2)
	go func() {
		defer close(frames)
		defer resp.Body.Close()
		r := bufio.NewReader(resp.Body)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			if data, ok := bytes.CutPrefix(bytes.TrimRight(line, "\n"), []byte("data: ")); ok {
				frames <- data
			}
		}
	}()
	return frames
}

// settles waits up to a second for cond, as released goroutines take a moment to exit.
func settles(cond func() bool) bool {
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// TestFirstTokenStallUntilClientLeaves checks that a first-token stall with no duration
// writes exactly one chunk, then nothing, and that the client's cancel releases the handler,
// its connection and its engine sequence.
func TestFirstTokenStallUntilClientLeaves(t *testing.T) {
	for _, zero := range []bool{true, false} {
		cfg := fastConfig()
		cfg.ZeroCost = zero
		cfg.Faults = Faults{StallRate: 1, StallAt: StallFirstToken}
		s, url := startServer(t, cfg)
		baseline := runtime.NumGoroutine()
		ctx, cancel := context.WithCancel(context.Background())
		// 5000 tokens at a 1 ms step keep the engine busy through the stall.
		frames := openStream(t, ctx, url, 5000)
		select {
		case f := <-frames:
			if !strings.Contains(string(f), `"text":" tok"`) {
				t.Errorf("zero=%v: first frame %s", zero, f)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("zero=%v: no first chunk", zero)
		}
		select {
		case f, ok := <-frames:
			t.Fatalf("zero=%v: after the first chunk got %q (open %v), want nothing", zero, f, ok)
		case <-time.After(300 * time.Millisecond):
		}
		if !zero && s.eng.snapshot().running != 1 {
			t.Errorf("engine: %d running during the stall, want 1", s.eng.snapshot().running)
		}
		cancel()
		for range frames {
		}
		if !settles(func() bool { return runtime.NumGoroutine() <= baseline }) {
			t.Errorf("zero=%v: %d goroutines a second after the cancel, %d before the request", zero, runtime.NumGoroutine(), baseline)
		}
		if !zero {
			if snap := s.eng.snapshot(); snap.running+snap.waiting != 0 || snap.kvUsage != 0 {
				t.Errorf("engine after the cancel: %+v", snap)
			}
		}
	}
}

// TestFirstTokenStallThenContinues checks that a timed first-token stall holds the stream
// after its first chunk for Stall, then delivers the rest and [DONE].
func TestFirstTokenStallThenContinues(t *testing.T) {
	const stall = 200 * time.Millisecond
	for _, zero := range []bool{true, false} {
		for _, per := range []int{1, 4} {
			cfg := fastConfig()
			cfg.ZeroCost = zero
			cfg.TokensPerChunk = per
			cfg.Faults = Faults{StallRate: 1, Stall: stall, StallAt: StallFirstToken}
			_, url := startServer(t, cfg)
			o := send(t, context.Background(), url, "/v1/completions", "", tinyRequest(false, true, 6))
			want := (6 + per - 1) / per
			if !o.done || o.readErr != nil || len(o.events) != want {
				t.Fatalf("zero=%v per=%d: done %v, %d chunks (want %d), err %v", zero, per, o.done, len(o.events), want, o.readErr)
			}
			// The server holds the stream for stall after writing the first chunk; on the client's
			// clock the gap also loses what the first chunk's delivery was late by (1.1 ms once in
			// a whole-suite run), so the second chunk is held to stall from the send exactly and
			// the gap to stall within delivery slack.
			if o.at[0] >= stall || o.at[1] < stall || o.at[1]-o.at[0] < stall-deliverySlack {
				t.Errorf("zero=%v per=%d: chunks at %v, want a %v gap after the first", zero, per, o.at, stall)
			}
		}
	}
}

// TestFirstTokenStallOneChunkAnswer checks a stall in an answer of one chunk: the chunk, the
// stall, then [DONE].
func TestFirstTokenStallOneChunkAnswer(t *testing.T) {
	const stall = 150 * time.Millisecond
	for _, zero := range []bool{true, false} {
		cfg := fastConfig()
		cfg.ZeroCost = zero
		cfg.Faults = Faults{StallRate: 1, Stall: stall, StallAt: StallFirstToken}
		_, url := startServer(t, cfg)
		o := send(t, context.Background(), url, "/v1/completions", "", tinyRequest(false, true, 1))
		if !o.done || len(o.events) != 1 || o.at[0] >= stall || o.end < stall {
			t.Errorf("zero=%v: done %v, %d chunks, first at %v, end at %v", zero, o.done, len(o.events), o.at, o.end)
		}
	}
}

// TestStallEndsWithServer checks that Close ends stalls: a first-byte stall answers 503, a
// first-token stall is cut.
func TestStallEndsWithServer(t *testing.T) {
	for _, at := range []string{StallFirstByte, StallFirstToken} {
		for _, zero := range []bool{true, false} {
			cfg := fastConfig()
			cfg.ZeroCost = zero
			cfg.Faults = Faults{StallRate: 1, Stall: time.Hour, StallAt: at, RetryAfter: time.Second}
			s, url := startServer(t, cfg)
			got := make(chan observed, 1)
			req := newPost(t, context.Background(), url, "/v1/completions", "", tinyRequest(false, true, 3))
			go func() { got <- do(req) }()
			time.Sleep(100 * time.Millisecond)
			s.Close()
			select {
			case o := <-got:
				if at == StallFirstByte && (o.status != http.StatusServiceUnavailable || o.header.Get("Retry-After") != "1") {
					t.Errorf("zero=%v %s: status %d, Retry-After %q, want 503 and 1", zero, at, o.status, o.header.Get("Retry-After"))
				}
				if at == StallFirstToken && (o.readErr == nil || len(o.events) != 1) {
					t.Errorf("zero=%v %s: %d chunks, err %v, want one chunk and a cut", zero, at, len(o.events), o.readErr)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("zero=%v %s: the stall outlived Close", zero, at)
			}
		}
	}
}

// flushWriter is an in-memory ResponseWriter that tells when the handler first flushed a
// data frame, so many handlers can be stalled without as many sockets.
type flushWriter struct {
	header  http.Header
	mu      sync.Mutex
	buf     bytes.Buffer
	flushed chan struct{}
	once    sync.Once
}

func newFlushWriter() *flushWriter {
	return &flushWriter{header: http.Header{}, flushed: make(chan struct{})}
}

func (w *flushWriter) Header() http.Header { return w.header }
func (w *flushWriter) WriteHeader(int)     {}

func (w *flushWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(b)
}

func (w *flushWriter) Flush() {
	w.mu.Lock()
	wrote := w.buf.Len() > 0
	w.mu.Unlock()
	if wrote {
		w.once.Do(func() { close(w.flushed) })
	}
}

func (w *flushWriter) frames() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Count(w.buf.Bytes(), []byte("data: "))
}

// serveLikeNetHTTP serves r and, like net/http, takes http.ErrAbortHandler (a cut connection
// where none can be hijacked) as the end of the request rather than a crash.
func serveLikeNetHTTP(h http.Handler, w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil && v != http.ErrAbortHandler {
			panic(v)
		}
	}()
	h.ServeHTTP(w, r)
}

// TestTenThousandStalledStreams holds 10,000 first-token stalls at once: each costs its
// handler goroutine and nothing more, and the clients' going away releases them all.
func TestTenThousandStalledStreams(t *testing.T) {
	n := 10000
	if raceEnabled {
		n = 2000
	}
	cfg := fastConfig()
	cfg.ZeroCost = true
	cfg.Faults = Faults{StallRate: 1, StallAt: StallFirstToken}
	s := New(cfg)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	baseline := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	writers := make([]*flushWriter, n)
	for i := range writers {
		w := newFlushWriter()
		writers[i] = w
		r := httptest.NewRequestWithContext(ctx, "POST", "/v1/completions", strings.NewReader(`{"prompt":"hi","max_tokens":8,"stream":true}`))
		wg.Go(func() { serveLikeNetHTTP(s, w, r) })
	}
	for i, w := range writers {
		select {
		case <-w.flushed:
		case <-time.After(10 * time.Second):
			t.Fatalf("stream %d never wrote its first chunk", i)
		}
	}
	time.Sleep(50 * time.Millisecond) // anything written past the stall would show now
	if g := runtime.NumGoroutine() - baseline; g > n+10 {
		t.Errorf("%d goroutines for %d stalled streams", g, n)
	}
	for i, w := range writers {
		if f := w.frames(); f != 1 {
			t.Fatalf("stream %d: %d frames during the stall, want 1", i, f)
		}
	}
	cancel()
	released := make(chan struct{})
	go func() { wg.Wait(); close(released) }()
	select {
	case <-released:
	case <-time.After(10 * time.Second):
		t.Fatal("handlers still stalled 10s after their clients left")
	}
	if !settles(func() bool { return runtime.NumGoroutine() <= baseline }) {
		t.Errorf("%d goroutines after the release, %d before", runtime.NumGoroutine(), baseline)
	}
}
