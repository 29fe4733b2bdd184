package runner

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/scheduler"
)

// The replay benchmarks run the whole product path (trace file, synthesis, scheduler, client,
// results file, summary) against the zero-cost simulator in its own process on loopback, so the
// figures are the replay process's own. One command runs them all:
//
//	go test ./runner -run '^$' -bench Replay -benchtime 1x
//
// scripts/bench-replay.sh runs each in its own process. Do not run them under chrt -f: a
// real-time replay and simulator starve the kernel's loopback softirq work and livelock.
//
// Each reports its figures as custom metrics; BENCHMARKS.md has the latest.

// BenchmarkReplayLateness replays 5 s of evenly spaced requests at 1,000 and 5,000 req/s and
// reports the send lateness percentiles from the run's own summary.
func BenchmarkReplayLateness(b *testing.B) {
	for _, rate := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("%dreq_s", rate), func(b *testing.B) {
			url := startSim(b, "--zero-cost")
			for b.Loop() {
				sum := benchRun(b, url, evenTrace(b, rate, 5*time.Second, 100, 16), 1)
				b.ReportMetric(sum.Lateness.P50*1000, "lateness_p50_us")
				b.ReportMetric(sum.Lateness.P99*1000, "lateness_p99_us")
				b.ReportMetric(sum.Lateness.Max*1000, "lateness_max_us")
				b.ReportMetric(sum.Throughput.ReqS, "req/s")
				b.ReportMetric(float64(sum.Requests.Failed), "failed")
			}
		})
	}
}

// BenchmarkReplayMaxRate offers 2,000, 5,000, 10,000 and 20,000 req/s for 1 s each and reports what
// the replay sustained (successful completions per second of the run) and how many failed,
// beside a reference: a bare net/http closed loop of 64 goroutines against the same simulator,
// no scheduling, no results.
func BenchmarkReplayMaxRate(b *testing.B) {
	url := startSim(b, "--zero-cost")
	ref := rawClosedLoop(b, url, 2*time.Second)
	for _, rate := range []int{2000, 5000, 10000, 20000} {
		b.Run(fmt.Sprintf("offered%d", rate), func(b *testing.B) {
			for b.Loop() {
				sum := benchRun(b, url, evenTrace(b, rate, time.Second, 20, 4), 1)
				b.ReportMetric(sum.Throughput.ReqS, "req/s")
				b.ReportMetric(ref, "raw_req/s")
				b.ReportMetric(sum.Throughput.ReqS/ref, "ratio")
				b.ReportMetric(sum.Lateness.P99*1000, "lateness_p99_us")
				b.ReportMetric(float64(sum.Requests.Failed), "failed")
			}
		})
	}
}

// BenchmarkReplayChunks sends 400 requests of 4,000 output tokens each (one SSE chunk per
// token) and reports the chunks absorbed per second of the run.
func BenchmarkReplayChunks(b *testing.B) {
	url := startSim(b, "--zero-cost", "--tokens-per-chunk", "1")
	for b.Loop() {
		sum := benchRun(b, url, evenTrace(b, 200, 2*time.Second, 20, 4000), 1)
		chunks := float64(sum.ITL.Count + sum.Requests.OK) // n tokens make n-1 gaps
		b.ReportMetric(chunks/sum.Throughput.DurationS, "chunks/s")
		b.ReportMetric(float64(sum.Requests.Failed), "failed")
	}
}

// BenchmarkReplayOpenStreams holds 10,000 streams open at once (the simulator stalls each
// answer for 20 s) and reports the replay process's peak resident memory, beside its resident
// memory before the run as the reference.
func BenchmarkReplayOpenStreams(b *testing.B) {
	url := startSim(b, "--zero-cost", "--fault-stall-rate", "1", "--fault-stall", "20s", "--max-waiting", "100000")
	for b.Loop() {
		before := rssMiB(b)
		var peak atomic.Int64
		done := make(chan struct{})
		go func() {
			t := time.NewTicker(100 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-done:
					return
				case <-t.C:
					if v := int64(rssMiB(b)); v > peak.Load() {
						peak.Store(v)
					}
				}
			}
		}()
		sum := benchRun(b, url, evenTrace(b, 5000, 2*time.Second, 100, 4), 1)
		close(done)
		b.ReportMetric(float64(peak.Load()), "peak_rss_MiB")
		b.ReportMetric(before, "rss_before_MiB")
		b.ReportMetric(float64(sum.Requests.OK), "ok")
	}
}

// evenTrace writes an Azure-style CSV trace of n = rate*span requests evenly spaced, with the
// given prompt and output tokens; the CSV's 100 ns timestamps keep sub-millisecond gaps exact.
func evenTrace(b *testing.B, rate int, span time.Duration, prompt, output int) string {
	b.Helper()
	p := filepath.Join(b.TempDir(), fmt.Sprintf("even_%d.csv", rate))
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "TIMESTAMP,ContextTokens,GeneratedTokens")
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	n := int(float64(rate) * span.Seconds())
	gap := time.Second / time.Duration(rate)
	for i := range n {
		t := start.Add(time.Duration(i) * gap)
		fmt.Fprintf(w, "%s,%d,%d\n", t.Format("2006-01-02 15:04:05.0000000"), prompt, output)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return p
}

func benchRun(b *testing.B, url, tracePath string, speed float64) *analysis.Summary {
	b.Helper()
	cfg := Config{
		Trace: tracePath, Out: b.TempDir(), Client: client.Config{BaseURL: url, Model: "replay-sim"}, Tokenizer: testenv.SampleTokenizer(), Schedule: scheduler.Config{Speed: speed},
		Stderr: io.Discard, Stdout: io.Discard, MaxErrorRate: 1,
	}
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	return sum
}

// startSim runs `replay sim` as its own process on a free loopback port.
func startSim(b *testing.B, args ...string) string {
	b.Helper()
	bin := os.Getenv("REPLAY_BIN") // a prebuilt binary, so a run under chrt does not compile
	if bin == "" {
		bin = filepath.Join(b.TempDir(), "replay")
		if out, err := exec.Command("go", "build", "-o", bin, filepath.Join(testenv.RepoRoot(), "cmd", "replay")).CombinedOutput(); err != nil {
			b.Fatalf("building replay: %v\n%s", err, out)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, append([]string{"sim", "--listen", addr}, args...)...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url := "http://" + addr
	for i := 0; ; i++ {
		resp, err := http.Get(url + "/health")
		if err == nil {
			resp.Body.Close()
			return url + "/v1"
		}
		if i > 100 {
			b.Fatalf("simulator did not come up: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// rawClosedLoop is the reference: how many streaming completions per second 64 goroutines
// with a bare net/http client get from the simulator, reading each stream to its end.
func rawClosedLoop(b *testing.B, url string, d time.Duration) float64 {
	b.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	body := `{"model":"replay-sim","prompt":"hello there","max_tokens":4,"stream":true}`
	var n atomic.Int64
	var wg sync.WaitGroup
	end := time.Now().Add(d)
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				resp, err := c.Post(url+"/completions", "application/json", strings.NewReader(body))
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 200 {
					n.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return float64(n.Load()) / d.Seconds()
}

// rssMiB reads this process's resident set size.
func rssMiB(b *testing.B) float64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err != nil {
				b.Fatal(err)
			}
			return float64(kb) / 1024
		}
	}
	b.Fatal("no VmRSS in /proc/self/status")
	return 0
}
