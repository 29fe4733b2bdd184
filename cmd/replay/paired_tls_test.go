package main

import (
	"context"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/sim"
)

// pairedKey is the API key both endpoints of the paired https run demand; the run reads it
// from its environment (--api-key-env), never from its arguments.
const pairedKey = "sk-paired-test-key"

// keyedSim is a simulator behind https that answers only requests carrying pairedKey, and
// counts the /metrics requests that did (and any request that did not).
type keyedSim struct {
	h       http.Handler
	metrics atomic.Int64
	refused atomic.Int64
}

func (k *keyedSim) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+pairedKey {
		k.refused.Add(1)
		http.Error(w, "missing or wrong API key", http.StatusUnauthorized)
		return
	}
	if r.URL.Path == "/metrics" {
		k.metrics.Add(1)
	}
	k.h.ServeHTTP(w, r)
}

// pairedTLSRun is what the one paired https run showed: its folder, stderr, the last page of
// its --metrics-listen seen (read at the linger, after the run's end) and the two endpoints.
type pairedTLSRun struct {
	out, stderr, page string
	sims              [2]*keyedSim
}

// pairedTLSN is how many requests the paired https run sends to each endpoint.
const pairedTLSN = 60

// TestPairedHTTPS runs `replay run` as its own process against two simulators in this process,
// each behind https (httptest's certificate, trusted through --ca-file) and an API key (from
// the environment), with --metrics-listen, a --plan-memory far under the window's prompts and
// the prompts kept in the rows; each subtest holds one property of that run.
func TestPairedHTTPS(t *testing.T) {
	r := startPairedTLS(t)
	t.Run("scrapes", func(t *testing.T) { checkPairedScrapes(t, r) })
	t.Run("live", func(t *testing.T) { checkPairedLive(t, r) })
	t.Run("streams", func(t *testing.T) { checkPairedStream(t, r) })
}

func startPairedTLS(t *testing.T) *pairedTLSRun {
	r := &pairedTLSRun{out: t.TempDir()}
	var urls [2]string
	var ca []byte
	for i := range r.sims {
		srv := sim.New(countingSim(t, sim.DefaultConfig(), testenv.SampleTokenizer()))
		if err := srv.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		r.sims[i] = &keyedSim{h: srv}
		ts := httptest.NewUnstartedServer(r.sims[i])
		ts.Config.ErrorLog = log.New(io.Discard, "", 0)
		ts.StartTLS()
		t.Cleanup(func() { ts.Close(); srv.Close() })
		urls[i] = ts.URL + "/v1"
		ca = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, ca, 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	cmd := exec.Command(replayBin(t), "run", "--trace", testenv.PairedTrace(t, pairedTLSN, 20), "--tokenizer", testenv.SampleTokenizer(),
		"--endpoint", "a="+urls[0], "--endpoint", "b="+urls[1], "--model", "replay-sim", "--ca-file", caFile,
		"--api-key-env", "REPLAY_PAIRED_KEY", "--metrics-listen", addr, "--metrics-linger", "30s", "--metrics-interval", "200ms",
		"--plan-memory", "16KiB", "--keep-prompts", "--checks", "none", "--speed", "2", "--max-lateness", "0", "--out", r.out)
	cmd.Env = append(os.Environ(), "REPLAY_PAIRED_KEY="+pairedKey)
	var err error
	if r.page, r.stderr, err = runScraped(cmd, "http://"+addr+"/metrics"); err != nil {
		t.Fatalf("the paired https run: %v\n%s", err, r.stderr)
	}
	return r
}

// runScraped runs cmd, reading its live page every 100 ms until it exits, and returns the last
// page read, its stderr and its error.
func runScraped(cmd *exec.Cmd, page string) (string, string, error) {
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return "", "", err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var last string
	for {
		if body, err := get(page); err == nil {
			last = body
		}
		select {
		case err := <-exited:
			return last, stderr.String(), err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// A paired run over https scrapes each endpoint's /metrics with the run's own client: the
// private CA of --ca-file trusted and the API key sent, so each endpoint's folder holds its
// server_metrics.jsonl, and no request of the run went without the key.
func checkPairedScrapes(t *testing.T, r *pairedTLSRun) {
	for i, label := range []string{"a", "b"} {
		b, err := os.ReadFile(filepath.Join(r.out, label, runfolder.ServerMetrics))
		if err != nil {
			t.Fatalf("%s: %v\n%s", label, err, r.stderr)
		}
		lines := strings.Count(string(b), "\n")
		if lines == 0 || !strings.Contains(string(b), results.RequestsRunning) {
			t.Fatalf("%s: server_metrics.jsonl holds %d lines of the engine's metrics:\n%s", label, lines, r.stderr)
		}
		if got := r.sims[i].metrics.Load(); got < int64(lines) {
			t.Errorf("%s: %d keyed /metrics requests for %d scrapes written", label, got, lines)
		}
		if n := r.sims[i].refused.Load(); n != 0 {
			t.Errorf("%s: %d requests came without the API key", label, n)
		}
	}
}

// A paired run serves --metrics-listen: one page with both endpoints' series, told apart by
// their endpoint label, each counting every request once the run has ended (the page read at
// the linger).
func checkPairedLive(t *testing.T, r *pairedTLSRun) {
	if !strings.Contains(r.stderr, "serving this run's metrics at") {
		t.Fatalf("the run did not say it served its metrics:\n%s", r.stderr)
	}
	for _, label := range []string{"a", "b"} {
		var finished float64
		for _, line := range strings.Split(r.page, "\n") {
			if m := counterLine.FindStringSubmatch(line); m != nil && m[1] == "replay_requests_finished_total" && strings.Contains(m[2], `endpoint="`+label+`"`) {
				v, err := strconv.ParseFloat(m[3], 64)
				if err != nil {
					t.Fatal(err)
				}
				finished += v
			}
		}
		if finished != pairedTLSN {
			t.Errorf("endpoint %s: replay_requests_finished_total %v on the last page, want %d:\n%s", label, finished, pairedTLSN, r.page)
		}
	}
}

// A paired run whose prompts exceed --plan-memory builds them as it goes, once: it says so,
// and both endpoints got byte-identical prompts for every request id.
func checkPairedStream(t *testing.T, r *pairedTLSRun) {
	if !strings.Contains(r.stderr, "as the run goes") {
		t.Fatalf("the run did not build its prompts as it went:\n%s", r.stderr)
	}
	prompts := [2]map[string]string{}
	for i, label := range []string{"a", "b"} {
		rows, err := rowfile.ReadAll(filepath.Join(r.out, label, "requests.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		prompts[i] = map[string]string{}
		for _, row := range rows {
			if row.Prompt == "" || !row.OK() {
				t.Fatalf("%s: request %s: %d prompt bytes, error %q", label, row.RequestID, len(row.Prompt), row.ErrorMessage)
			}
			prompts[i][row.RequestID] = row.Prompt
		}
	}
	if len(prompts[0]) != pairedTLSN || len(prompts[1]) != pairedTLSN {
		t.Fatalf("%d and %d request ids, want %d each", len(prompts[0]), len(prompts[1]), pairedTLSN)
	}
	for id, p := range prompts[0] {
		if prompts[1][id] != p {
			t.Fatalf("request %s: b got other prompt bytes than a", id)
		}
	}
}
