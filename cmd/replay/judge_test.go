package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results/rowfile"
)

// writeRateTrace writes an invented Mooncake trace of n requests at rate per second, each a
// 64-token prompt (one 512-token block, shared) asking for out tokens.
func writeRateTrace(t *testing.T, n int, rate float64, out int) string {
	t.Helper()
	recs := make([]testenv.MooncakeRecord, n)
	for i := range recs {
		recs[i] = testenv.MooncakeRecord{Timestamp: float64(i) * 1000 / rate, InputLength: 64, OutputLength: out, HashIDs: []int{1}}
	}
	return testenv.WriteMooncake(t, "rate.jsonl", recs)
}

// runAgainst runs `replay run` of trace against url (a replay sim) with extra flags, under a
// shell that first sets the open-file limit when nofile > 0. It returns the exit code, the
// output folder, stderr and the process's peak RSS in bytes.
func runAgainst(t *testing.T, bin, url, trace string, nofile int, flags ...string) (int, string, string, int64) {
	t.Helper()
	out := t.TempDir()
	args := append([]string{"run", "--endpoint", url, "--model", "replay-sim", "--tokenizer", testenv.SampleTokenizer(),
		"--trace", trace, "--out", out}, flags...)
	cmd := exec.Command(bin, args...)
	if nofile > 0 {
		cmd = exec.Command("sh", append([]string{"-c", fmt.Sprintf(`ulimit -n %d && exec "$0" "$@"`, nofile), bin}, args...)...)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var rss int64
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = ru.Maxrss * 1024 // kilobytes on Linux
		}
	}
	return exitCode(err), out, stderr.String(), rss
}

func readRunSummary(t *testing.T, dir string) *analysis.Summary {
	t.Helper()
	s, err := analysis.ReadSummary(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// An endpoint answering 200 with SSE frames that are not JSON, then [DONE]: every request is
// bad_stream with the server's bytes quoted, and the run fails its error rate (exit 3).
func TestGarbageFramesAreBadStream(t *testing.T) {
	bin := replayBin(t)
	url := startSim(t, bin, "--tokenizer", testenv.SampleTokenizer(), "--fault-garbage-rate", "1")
	code, out, stderr, _ := runAgainst(t, bin, url, writeRateTrace(t, 40, 200, 8), 0, "--max-lateness", "0")
	if code != 3 {
		t.Fatalf("exit %d, want 3:\n%s", code, stderr)
	}
	rows, err := rowfile.ReadAll(filepath.Join(out, "requests.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 40 {
		t.Fatalf("%d rows, want 40", len(rows))
	}
	for _, r := range rows {
		if r.ErrorClass != "bad_stream" || !strings.Contains(r.ErrorMessage, `"`) {
			t.Fatalf("row %s: class %q message %q: want bad_stream quoting the server's bytes", r.RequestID, r.ErrorClass, r.ErrorMessage)
		}
	}
	if s := readRunSummary(t, out); s.Errors["bad_stream"] != 40 || !analysis.VerdictIs(s.Verdict, analysis.VerdictFailed) {
		t.Fatalf("summary errors %v, verdict %q: want 40 bad_stream, failed", s.Errors, s.Verdict)
	}
}

// At an offered load the client cannot hold (every answer takes 300 ms, 2,000 requests a
// second, 200 open files), no request fails on the client's limit: sends are held and counted
// as client backlog, in flight stays under the limit, and the verdict is client-bound (exit
// 5). At a load it can hold, the verdict is ok (exit 0).
func TestClientBoundVerdict(t *testing.T) {
	bin := replayBin(t)
	url := startSim(t, bin, "--tokenizer", testenv.SampleTokenizer(), "--zero-cost",
		"--fault-stall-rate", "1", "--fault-stall", "300ms")
	t.Run("overloaded", func(t *testing.T) {
		code, out, stderr, rss := runAgainst(t, bin, url, writeRateTrace(t, 2000, 2000, 4), 200)
		if code != 5 {
			t.Fatalf("exit %d, want 5:\n%s", code, stderr)
		}
		s := readRunSummary(t, out)
		t.Logf("verdict %q; in flight max %d of limit %d; held %d, backlog p99 %.0f ms; peak RSS %d MB",
			s.Verdict, s.Client.MaxInFlight, s.Client.Limit, s.Client.Held, s.Client.Backlog.P99, rss>>20)
		if !strings.HasPrefix(s.Verdict, "client-bound: these figures measure the load generator, not the endpoint") {
			t.Errorf("verdict %q", s.Verdict)
		}
		if s.Requests.Failed != 0 || s.Requests.Total != 2000 {
			t.Errorf("%d of %d failed (%v): want all 2000 sent and none failed", s.Requests.Failed, s.Requests.Total, s.Errors)
		}
		if s.Client.Limit == 0 || s.Client.Limit >= 200 || s.Client.MaxInFlight > s.Client.Limit || s.Client.Held < 1000 {
			t.Errorf("client %+v: want a limit under 200 files, never exceeded, most requests held", s.Client)
		}
		if rss > 512<<20 {
			t.Errorf("peak RSS %d MB, want bounded (< 512 MB)", rss>>20)
		}
		page, _ := os.ReadFile(filepath.Join(out, "report.html"))
		if !strings.Contains(string(page), "client-bound: these figures measure the load generator") {
			t.Error("report.html does not carry the client-bound verdict")
		}
		if !strings.Contains(stderr, "client-bound") {
			t.Errorf("stderr does not say client-bound:\n%s", stderr)
		}
	})
	t.Run("held", func(t *testing.T) {
		// Other test binaries share these two cores: a late run here is honestly
		// client-bound, so it gets three tries to show a quiet one is ok.
		var code int
		var stderr string
		for try := 0; try < 3; try++ {
			var out string
			code, out, stderr, _ = runAgainst(t, bin, url, writeRateTrace(t, 100, 100, 4), 200)
			s := readRunSummary(t, out)
			if code == 0 && analysis.VerdictIs(s.Verdict, analysis.VerdictOK) && s.Client.Held == 0 {
				return
			}
			t.Logf("try %d: exit %d, verdict %q, held %d", try, code, s.Verdict, s.Client.Held)
		}
		t.Fatalf("a load this machine holds was not judged ok in 3 tries (exit %d):\n%s", code, stderr)
	})
	t.Run("no-hold", func(t *testing.T) {
		// Without the hold the sends fail on this machine's descriptors: class client, never
		// an endpoint error, and the run is client-bound.
		code, out, stderr, _ := runAgainst(t, bin, url, writeRateTrace(t, 600, 2000, 4), 100, "--client-limit", "-1", "--metrics-url", "none")
		if code != 5 {
			t.Fatalf("exit %d, want 5:\n%s", code, stderr)
		}
		s := readRunSummary(t, out)
		if s.Client.Errors == 0 || s.Errors["client"] != s.Client.Errors || s.Errors["connect"] != 0 {
			t.Fatalf("errors %v, client errors %d: want client-class failures only", s.Errors, s.Client.Errors)
		}
	})
}

// 10,000 streams that stall after their first token, with --stall-timeout 2s: every one ends
// as timeout within 3 s of its first token, and the client stays under 1 GiB.
func TestStalledStreamsTimeOut(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 streams: not in -short")
	}
	bin := replayBin(t)
	url := startSim(t, bin, "--tokenizer", testenv.SampleTokenizer(), "--zero-cost",
		"--fault-stall-rate", "1", "--fault-stall-at", "first-token")
	// 20,000 connections on two cores shared with other test binaries: a busy moment can
	// honestly delay a first token or a timer, so the timing gets a second try.
	var err error
	for try := 0; try < 2; try++ {
		if err = stalledRun(t, bin, url); err == nil {
			return
		}
		t.Logf("try %d: %v", try, err)
	}
	t.Fatal(err)
}

// stalledRun replays 10,000 requests into stalled streams and checks every row's timeout.
func stalledRun(t *testing.T, bin, url string) error {
	const n = 10000
	start := time.Now()
	code, out, stderr, rss := runAgainst(t, bin, url, writeRateTrace(t, n, 10000, 8), 0,
		"--stall-timeout", "2s", "--metrics-url", "none", "--max-error-rate", "1", "--max-lateness", "0")
	t.Logf("%d stalled streams in %s, peak RSS %d MB", n, time.Since(start).Round(time.Millisecond), rss>>20)
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s", code, stderr)
	}
	rows, err := rowfile.ReadAll(filepath.Join(out, "requests.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != n {
		t.Fatalf("%d rows, want %d", len(rows), n)
	}
	if rss >= 1<<30 {
		t.Fatalf("peak RSS %d MB, want under 1 GiB", rss>>20)
	}
	var worst time.Duration
	for _, r := range rows {
		wait := time.Duration(r.DoneNS - r.FirstTokenNS)
		worst = max(worst, wait)
		if r.ErrorClass != "timeout" || r.FirstTokenNS == 0 || wait < 2*time.Second || wait > 3*time.Second {
			return fmt.Errorf("row %s: class %q, first token %d, ended %s after it: want timeout 2-3 s after the first token",
				r.RequestID, r.ErrorClass, r.FirstTokenNS, wait)
		}
	}
	t.Logf("slowest timeout %s after its first token", worst)
	return nil
}
