package runner

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/sim"
)

// TestSoak replays 1,000,000 requests (REPLAY_SOAK_REQUESTS to change) against the zero-cost
// simulator injecting, 10% each, HTTP 500s, 429s, connections cut half-way and streams that
// stall after their first token (ended by --stall-timeout): exactly one row per request, each
// with the class its fault calls for, and resident memory and goroutines flat after warm-up,
// printed every 100,000 requests. It takes minutes, so it runs only with REPLAY_SOAK=1:
//
//	REPLAY_SOAK=1 go test ./runner -run TestSoak -v -timeout 60m
func TestSoak(t *testing.T) {
	if os.Getenv("REPLAY_SOAK") == "" {
		t.Skip("the soak runs only with REPLAY_SOAK=1 (1,000,000 requests, several minutes)")
	}
	n := 1_000_000
	if v := os.Getenv("REPLAY_SOAK_REQUESTS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("REPLAY_SOAK_REQUESTS=%q: want a positive count", v)
		}
	}
	const rate = 4000 // requests a second: 250 s for a million
	sc := sim.DefaultConfig()
	sc.ZeroCost = true
	sc.Faults = sim.Faults{ErrorRate: 0.1, RateLimitRate: 0.1, BreakRate: 0.1, StallRate: 0.1, StallAt: "first-token"}
	srv := sim.New(sc)
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var arrived atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived.Add(1)
		srv.ServeHTTP(w, r)
	}))
	defer ts.Close()

	out := t.TempDir()
	stop := watchSoak(t, &arrived, n)
	start := time.Now()
	sum, err := Run(context.Background(), Config{
		Trace:     writeSoakTrace(t, n, rate),
		Client:    client.Config{BaseURL: ts.URL + "/v1", Model: "replay-sim", StallTimeout: time.Second},
		Tokenizer: testenv.SampleTokenizer(), Out: out,
		MaxErrorRate: 1, MaxLateness: -1, MetricsURL: "none", Stdout: nopWriter{}, Stderr: nopWriter{},
		// The server is in this process: two descriptors a connection, which the runner
		// only knows for its own simulator.
		ClientLimit: max(100, (client.OpenFileLimit()-client.FDReserve)/2),
	})
	stop()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d requests in %s: errors %v, lateness p99 %.2f ms", sum.Requests.Total, time.Since(start).Round(time.Second), sum.Errors, sum.Lateness.P99)
	checkSoakRows(t, filepath.Join(out, "requests.parquet"), n, sc)
}

// nopWriter swallows the run's table and progress.
type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }

// writeSoakTrace writes n 64-token requests at rate per second, 8 output tokens each.
func writeSoakTrace(t *testing.T, n, rate int) string {
	recs := make([]testenv.MooncakeRecord, n)
	for i := range recs {
		recs[i] = testenv.MooncakeRecord{Timestamp: float64(i) * 1000 / float64(rate), InputLength: 64, OutputLength: 8, HashIDs: []int{1}}
	}
	return testenv.WriteMooncake(t, "soak.jsonl", recs)
}

// watchSoak prints resident memory and goroutines at every 100,000 arrivals, and at the end
// fails the test if either grew after the first checkpoint past warm-up (200,000 requests).
func watchSoak(t *testing.T, arrived *atomic.Int64, n int) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var base struct{ rss, goroutines int64 }
		next := int64(100_000)
		for {
			select {
			case <-done:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if arrived.Load() < next {
				continue
			}
			rss, g := residentBytes(), int64(runtime.NumGoroutine())
			t.Logf("%7d requests: RSS %4d MB, goroutines %5d", next, rss>>20, g)
			if next == 200_000 {
				base.rss, base.goroutines = rss, g
			} else if base.rss > 0 && (rss > base.rss+base.rss/4+64<<20 || g > 2*base.goroutines+500) {
				t.Errorf("at %d requests RSS %d MB and %d goroutines, from %d MB and %d at 200,000: not flat",
					next, rss>>20, g, base.rss>>20, base.goroutines)
			}
			next += 100_000
		}
	}()
	return func() { close(done); <-finished }
}

// residentBytes is this process's resident set size (Linux), 0 elsewhere.
func residentBytes() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// soakClass is the error class a request with fault f must end with.
var soakClass = map[sim.Fault]string{
	sim.FaultNone: "", sim.FaultError: "http_5xx", sim.FaultRateLimit: "http_429",
	sim.FaultBreak: "stream_broken", sim.FaultStall: "timeout",
}

// checkSoakRows holds every request to one row with its fault's class.
func checkSoakRows(t *testing.T, path string, n int, sc sim.Config) {
	seen := make([]bool, n)
	byClass := map[string]int{}
	err := rowfile.Read(path, func(r results.Row) error {
		i, err := strconv.Atoi(r.RequestID)
		if err != nil || i < 0 || i >= n {
			return fmt.Errorf("row with request id %q", r.RequestID)
		}
		if seen[i] {
			return fmt.Errorf("request %d has two rows", i)
		}
		seen[i] = true
		f := sc.Faults.Draw(sc.Seed, r.RequestID)
		if want := soakClass[f]; r.ErrorClass != want {
			return fmt.Errorf("request %d (fault %s): class %q (%s), want %q", i, f, r.ErrorClass, r.ErrorMessage, want)
		}
		byClass[r.ErrorClass]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, ok := range seen {
		if !ok {
			t.Fatalf("request %d has no row", i)
		}
	}
	t.Logf("one row for each of %d requests, each with its fault's class: %v", n, byClass)
}
