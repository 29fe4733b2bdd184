package main

import (
	"cmp"
	"encoding/json"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/results/rowfile"
)

// freeAddr is a loopback address nothing listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// counterLine matches one sample of the text exposition: name{labels} value.
var counterLine = regexp.MustCompile(`^(replay_[a-z_]+_total)(\{[^}]*\})? (\S+)$`)

// A run scraped every 200 ms: counters never decrease, and at the end the finished and failed
// counters are summary.json's counts and the TTFT histogram holds every ok request. A
// snapshot taken mid-run parses, says partial, and names row segments that hold its rows.
func TestLiveMetricsAndSnapshots(t *testing.T) {
	bin := replayBin(t)
	out := t.TempDir()
	addr := freeAddr(t)
	cmd := exec.Command(bin, "run", "--trace", writeRateTrace(t, 400, 80, 8), "--metrics-listen", addr, "--metrics-linger", "10s",
		"--snapshot-every", "1s", "--max-lateness", "0", "--sim-fault-error-rate", "0.1", "--max-error-rate", "1", "--out", out)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	last := map[string]float64{}
	var final string
	var snapshot *analysis.Summary
	var runErr error
	for running := true; running; {
		if body, err := get("http://" + addr + "/metrics"); err == nil {
			final = body
			for name, v := range counters(body) {
				if v < last[name] {
					t.Fatalf("%s went down from %v to %v", name, last[name], v)
				}
				last[name] = v
			}
		}
		if snapshot == nil {
			if s, err := analysis.ReadSummary(filepath.Join(out, "summary.json")); err == nil && s.Run.Partial {
				snapshot = s
				checkSnapshotRows(t, out, s)
			}
		}
		select {
		case runErr = <-exited:
			running = false
		case <-time.After(200 * time.Millisecond):
		}
	}
	if runErr != nil {
		t.Fatalf("%v\n%s", runErr, stderr.String())
	}
	s := readRunSummary(t, out)
	if snapshot == nil || !strings.HasPrefix(snapshot.Verdict, "partial") {
		t.Fatalf("no partial snapshot seen during the run (%v)", snapshot)
	}
	if s.Run.Partial || strings.HasPrefix(s.Verdict, "partial") {
		t.Fatalf("final summary still partial: %q", s.Verdict)
	}
	if _, err := os.Stat(filepath.Join(out, "partial")); !os.IsNotExist(err) {
		t.Fatalf("the partial segments outlived the run: %v", err)
	}
	c := counters(final)
	if c["replay_requests_finished_total"] != float64(s.Requests.Total) || c["replay_requests_failed_total"] != float64(s.Requests.Failed) {
		t.Fatalf("last scrape finished %v failed %v; summary %d and %d (scrape taken before the end?)",
			c["replay_requests_finished_total"], c["replay_requests_failed_total"], s.Requests.Total, s.Requests.Failed)
	}
	if got := histogramCount(final, "replay_ttft_seconds"); got != s.Requests.OK {
		t.Fatalf("TTFT histogram count %d, ok %d", got, s.Requests.OK)
	}
	buckets := histogramBuckets(final, "replay_ttft_seconds")
	for _, q := range []struct {
		p  float64
		ms float64
	}{{0.5, s.TTFT.P50}, {0.95, s.TTFT.P95}, {0.99, s.TTFT.P99}} {
		lo, hi := bucketOf(buckets, q.p)
		if v := q.ms / 1000; v < lo*0.999 || v > hi*1.001 {
			t.Errorf("TTFT p%g: summary.json %.4f s, outside the histogram's bucket [%.4f, %.4f] s", 100*q.p, v, lo, hi)
		}
	}
}

// bucket is one classic histogram bucket: its upper bound and cumulative count.
type bucket struct{ le, count float64 }

// histogramBuckets reads a histogram's classic buckets (summed over its series) in order.
func histogramBuckets(body, name string) []bucket {
	sum := map[float64]float64{}
	le := regexp.MustCompile(`le="([^"]+)"`)
	for _, line := range strings.Split(body, "\n") {
		if !strings.HasPrefix(line, name+"_bucket") {
			continue
		}
		m := le.FindStringSubmatch(line)
		f := strings.Fields(line)
		if m == nil || len(f) < 2 {
			continue
		}
		bound, err1 := strconv.ParseFloat(m[1], 64)
		c, err2 := strconv.ParseFloat(f[len(f)-1], 64)
		if err1 == nil && err2 == nil {
			sum[bound] += c
		}
	}
	out := make([]bucket, 0, len(sum))
	for b, c := range sum {
		out = append(out, bucket{b, c})
	}
	slices.SortFunc(out, func(a, b bucket) int { return cmp.Compare(a.le, b.le) })
	return out
}

// bucketOf is the [lower, upper] bounds of the bucket holding quantile p.
func bucketOf(bs []bucket, p float64) (float64, float64) {
	if len(bs) == 0 {
		return 0, 0
	}
	rank := math.Ceil(p * bs[len(bs)-1].count)
	lo := 0.0
	for _, b := range bs {
		if b.count >= rank {
			return lo, b.le
		}
		lo = b.le
	}
	return lo, math.Inf(1)
}

func get(url string) (string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// counters sums each replay counter over its series.
func counters(body string) map[string]float64 {
	out := map[string]float64{}
	for _, line := range strings.Split(body, "\n") {
		if m := counterLine.FindStringSubmatch(line); m != nil {
			v, _ := strconv.ParseFloat(m[3], 64)
			out[m[1]] += v
		}
	}
	return out
}

// histogramCount sums a histogram's _count series.
func histogramCount(body, name string) int64 {
	var n float64
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, name+"_count") {
			f := strings.Fields(line)
			v, _ := strconv.ParseFloat(f[len(f)-1], 64)
			n += v
		}
	}
	return int64(n)
}

// checkSnapshotRows reads the segments a snapshot names: they hold at least the requests it
// counts (rows go on arriving after it).
func checkSnapshotRows(t *testing.T, dir string, s *analysis.Summary) {
	paths, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(s.Run.PartialRows)))
	var n int64
	for _, p := range paths {
		rows, err := rowfile.ReadAll(p)
		if err != nil {
			t.Fatalf("segment %s the snapshot names: %v", p, err)
		}
		n += int64(len(rows))
	}
	if n < s.Requests.Total {
		t.Fatalf("snapshot counts %d requests, its segments %v hold %d rows", s.Requests.Total, paths, n)
	}
	b, _ := json.Marshal(s.Requests)
	t.Logf("snapshot: %s in %d segments, verdict %q", b, len(paths), s.Verdict)
}
