package scheduler

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// benchSeconds is how long each lateness benchmark replays; SCHED_BENCH_SECONDS overrides it.
func benchSeconds() time.Duration {
	if s, err := strconv.ParseFloat(os.Getenv("SCHED_BENCH_SECONDS"), 64); err == nil && s > 0 {
		return time.Duration(s * float64(time.Second))
	}
	if testing.Short() {
		return time.Second
	}
	return 5 * time.Second
}

// loopback starts a tiny HTTP server on 127.0.0.1 that answers at once, and returns a send
// function that POSTs to it and reads the answer. Connections are capped at 1,024 (requests
// beyond wait inside the transport, after their SentNS) so an overloaded run does not run out
// of file descriptors; failed requests are counted and logged.
func loopback(b *testing.B) SendFunc {
	send, errs := loopbackCounted(b)
	b.Cleanup(func() {
		if n := errs.Load(); n > 0 {
			b.Logf("%d loopback requests failed", n)
		}
	})
	return send
}

// loopbackCounted is loopback with its error count.
func loopbackCounted(b *testing.B) (SendFunc, *atomic.Int64) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Write([]byte(`{"ok":true}`))
	}))
	b.Cleanup(srv.Close)
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 1024, MaxIdleConnsPerHost: 1024, MaxConnsPerHost: 1024}}
	b.Cleanup(client.CloseIdleConnections)
	errs := new(atomic.Int64)
	return func(ctx context.Context, it Item, _ Timing) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(`{"prompt":"x"}`))
		if err != nil {
			errs.Add(1)
			return
		}
		resp, err := client.Do(req)
		if err != nil {
			errs.Add(1)
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}, errs
}

// latenessRun replays rate items per second for d, wrapping send to keep each item's
// lateness (SentNS - ScheduledNS), and reports p50/p99/max in microseconds.
func latenessRun(b *testing.B, rate int, d time.Duration, tune tuning, send SendFunc) {
	n := int(float64(rate) * d.Seconds())
	trace := make([]Item, n)
	for i := range trace {
		trace[i] = Item{Index: i, Timestamp: time.Duration(i) * time.Second / time.Duration(rate)}
	}
	late := make([]int64, n)
	wake := make([]int64, 0, n)
	tune.onWake = func(due, now int64) { wake = append(wake, now-due) }
	wrapped := func(ctx context.Context, it Item, t Timing) {
		late[it.Index] = t.SentNS - t.ScheduledNS
		if send != nil {
			send(ctx, it, t)
		}
	}
	// A bare thread sleeping 1 ms at a time beside the run shows what the machine allowed at
	// the same moment: its overshoot is a floor for the dispatcher's wake-up lateness.
	var floor []int64
	stopFloor, floorDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(floorDone)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for {
			select {
			case <-stopFloor:
				return
			default:
			}
			start := time.Now()
			preciseSleep(time.Millisecond)
			floor = append(floor, int64(time.Since(start)-time.Millisecond))
		}
	}()
	b.ResetTimer()
	for range b.N {
		stats, err := Run(context.Background(), trace, Config{tune: tune}, wrapped)
		if err != nil {
			b.Fatal(err)
		}
		if stats.Sent != n {
			b.Fatalf("sent %d of %d", stats.Sent, n)
		}
	}
	b.StopTimer()
	close(stopFloor)
	<-floorDone
	slices.Sort(floor)
	if len(floor) > 0 {
		b.ReportMetric(float64(floor[len(floor)*99/100])/1e3, "floor-p99-µs")
	}
	slices.Sort(late)
	us := func(v int64) float64 { return float64(v) / 1e3 }
	b.ReportMetric(us(late[n/2]), "p50-µs")
	b.ReportMetric(us(late[n*99/100]), "p99-µs")
	b.ReportMetric(us(late[n-1]), "max-µs")
	slices.Sort(wake)
	b.ReportMetric(us(wake[len(wake)*99/100]), "wake-p99-µs")
	b.ReportMetric(0, "ns/op")
}

// tunings are the dispatch variants compared; "default" is what Run uses.
var tunings = []struct {
	name string
	tune tuning
}{
	{"default", tuning{}},
	{"goroutine-per-send", tuning{goPerSend: true}},
	{"no-yield", tuning{noYield: true}},
	{"locked-thread", tuning{lockThread: true}},
	{"timer-spin", tuning{timerOnly: true, noYield: true}},
}

// BenchmarkLateness measures send lateness at 1,000 and 5,000 req/s, with a no-op send and
// with a real HTTP request to a loopback server. Run with -benchtime=1x.
func BenchmarkLateness(b *testing.B) {
	d := benchSeconds()
	rates := []int{1000, 5000}
	if s := os.Getenv("SCHED_BENCH_RATES"); s != "" {
		rates = nil
		for _, f := range strings.Split(s, ",") {
			r, err := strconv.Atoi(f)
			if err != nil {
				b.Fatal(err)
			}
			rates = append(rates, r)
		}
	}
	for _, rate := range rates {
		for _, target := range []string{"noop", "http"} {
			for _, tc := range tunings {
				if sel := os.Getenv("SCHED_BENCH_TUNE"); sel != "" && !slices.Contains(strings.Split(sel, ","), tc.name) {
					continue
				}
				b.Run(fmt.Sprintf("rate=%d/send=%s/%s", rate, target, tc.name), func(b *testing.B) {
					var send SendFunc
					if target == "http" {
						send = loopback(b)
					}
					latenessRun(b, rate, d, tc.tune, send)
				})
			}
		}
	}
}

// BenchmarkDispatchRate measures the highest send rate the dispatcher sustains. With the
// no-op send every item is due 250 ns after the previous one (a demand of 4M req/s); with the
// loopback HTTP send the demand is 10,000 req/s for 2 s. It reports sends started per second
// (items over the span of their SentNS) and completed per second of wall time.
func BenchmarkDispatchRate(b *testing.B) {
	for _, target := range []string{"noop", "http"} {
		b.Run("send="+target, func(b *testing.B) {
			n, step := 400_000, 250*time.Nanosecond
			var send SendFunc = func(context.Context, Item, Timing) {}
			if target == "http" {
				n, step = 20_000, 100*time.Microsecond
				send = loopback(b)
			}
			trace := make([]Item, n)
			for i := range trace {
				trace[i] = Item{Index: i, Timestamp: time.Duration(i) * step}
			}
			sent := make([]int64, n)
			wrapped := func(ctx context.Context, it Item, t Timing) {
				sent[it.Index] = t.SentNS
				send(ctx, it, t)
			}
			b.ResetTimer()
			var elapsed time.Duration
			var span int64
			for range b.N {
				start := time.Now()
				stats, err := Run(context.Background(), trace, Config{}, wrapped)
				if err != nil {
					b.Fatal(err)
				}
				elapsed += time.Since(start)
				if stats.Sent != n {
					b.Fatalf("sent %d of %d", stats.Sent, n)
				}
				span += slices.Max(sent) - slices.Min(sent)
			}
			b.ReportMetric(float64(n*b.N)/(float64(span)/1e9), "sent/s")
			b.ReportMetric(float64(n*b.N)/elapsed.Seconds(), "done/s")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkBatchSpread measures how far apart requests with equal timestamps leave: 40
// batches of 50 items, 25 ms apart, and the spread is max - min SentNS within each batch.
func BenchmarkBatchSpread(b *testing.B) {
	const batches, size = 40, 50
	for _, target := range []string{"noop", "http"} {
		b.Run("send="+target, func(b *testing.B) {
			var send SendFunc
			if target == "http" {
				send = loopback(b)
			}
			trace := make([]Item, 0, batches*size)
			for i := range batches * size {
				trace = append(trace, Item{Index: i, Timestamp: time.Duration(i/size) * 25 * time.Millisecond})
			}
			sent := make([]int64, len(trace))
			wrapped := func(ctx context.Context, it Item, t Timing) {
				sent[it.Index] = t.SentNS
				if send != nil {
					send(ctx, it, t)
				}
			}
			var spreads []int64
			for range b.N {
				if _, err := Run(context.Background(), trace, Config{}, wrapped); err != nil {
					b.Fatal(err)
				}
				for k := range batches {
					s := sent[k*size : (k+1)*size]
					spreads = append(spreads, slices.Max(s)-slices.Min(s))
				}
			}
			slices.Sort(spreads)
			b.ReportMetric(float64(spreads[len(spreads)/2])/1e3, "spread-p50-µs")
			b.ReportMetric(float64(spreads[len(spreads)-1])/1e3, "spread-max-µs")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkDispatchAllocs counts heap allocations per dispatched item after setup: the
// hand-off from the dispatcher to a parked sender should allocate nothing.
func BenchmarkDispatchAllocs(b *testing.B) {
	const n = 20_000
	trace := make([]Item, n)
	for i := range trace {
		trace[i] = Item{Index: i, Timestamp: time.Duration(i) * 20 * time.Microsecond}
	}
	noop := func(context.Context, Item, Timing) {}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := Run(context.Background(), trace, Config{}, noop); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
}

// BenchmarkSleepFloor measures what the machine itself allows: a thread that does nothing but
// sleep 1 ms in nanosleep(2) and read the clock, 2,000 times. Its overshoot is a floor for the
// dispatcher's wake-up lateness; on a busy machine it is set by the kernel's scheduler, not by
// this package.
func BenchmarkSleepFloor(b *testing.B) {
	if !preciseSleepAvailable {
		b.Skip("no precise sleep on this platform")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var over []int64
	for range b.N {
		for range 2000 {
			start := time.Now()
			preciseSleep(time.Millisecond)
			over = append(over, int64(time.Since(start)-time.Millisecond))
		}
	}
	slices.Sort(over)
	b.ReportMetric(float64(over[len(over)/2])/1e3, "p50-µs")
	b.ReportMetric(float64(over[len(over)*99/100])/1e3, "p99-µs")
	b.ReportMetric(float64(over[len(over)-1])/1e3, "max-µs")
	b.ReportMetric(0, "ns/op")
}
