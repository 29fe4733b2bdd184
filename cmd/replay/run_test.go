package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/llm-replay/replay/gen"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results/rowfile"
)

// replayBin builds the real binary once per test run: signals and exit codes are tested on the
// process a user runs.
func replayBin(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "replay-bin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "replay")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = errors.New(string(out))
		}
	})
	if binErr != nil {
		t.Fatalf("building replay: %v", binErr)
	}
	return binPath
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// TestRunDefault is the README's first command: the default generated workload against the built-in
// simulator writes the three output files, and the simulator counted exactly the synthesized
// prompt and output tokens.
func TestRunDefault(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command(replayBin(t), "run", "--speed", "8", "--max-lateness", "0", "--out", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("replay run: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "started the built-in simulator") {
		t.Errorf("stderr does not say the simulator was started:\n%s", stderr.String())
	}
	for _, f := range []string{"requests.parquet", "summary.json", "report.html"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Fatalf("%s missing or empty: %v", f, err)
		}
	}
	var sum struct {
		Requests struct{ Total, OK, Failed int }
		Fidelity struct {
			Prompt *float64 `json:"prompt_tokens_exact_pct"`
			Output *float64 `json:"output_tokens_exact_pct"`
		}
		Cache struct {
			HitPct   *float64 `json:"hit_pct"`
			IdealPct *float64 `json:"ideal_hit_pct"`
		}
		Sessions *struct {
			Sessions   int `json:"sessions"`
			MultiTurn  int `json:"multi_turn"`
			LaterTurns int `json:"later_turns"`
		}
	}
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	recs, err := gen.Records(gen.Default())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Requests.Total != len(recs) || sum.Requests.OK != len(recs) {
		t.Fatalf("requests %+v, want all %d of the default workload ok", sum.Requests, len(recs))
	}
	if sum.Fidelity.Prompt == nil || *sum.Fidelity.Prompt != 100 || sum.Fidelity.Output == nil || *sum.Fidelity.Output != 100 {
		t.Fatalf("fidelity %s", b)
	}
	// The default workload shares prefixes and holds conversations: the first run shows both.
	if c := sum.Cache; c.HitPct == nil || *c.HitPct <= 0 || c.IdealPct == nil || *c.IdealPct <= 0 {
		t.Fatalf("cache hit rates from usage %v, ideal %v: want both above 0", c.HitPct, c.IdealPct)
	}
	if s := sum.Sessions; s == nil || s.MultiTurn == 0 || s.LaterTurns == 0 {
		t.Fatalf("sessions %+v: want multi-turn sessions with gated later turns", s)
	}
}

// TestRunInterrupted sends SIGINT mid-run: the process must exit after closing
// requests.parquet validly with every finished request, and still write the summary.
func TestRunInterrupted(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command(replayBin(t), "run", "--speed", "1", "--max-lateness", "0", "--out", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for !strings.Contains(stderr.String(), "open-loop replay") {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("run did not start sending:\n%s", stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(6 * time.Second) // the default workload's first requests are in the first seconds
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	t.Logf("stderr:\n%s", stderr.String())
	if code := exitCode(err); code != 130 {
		t.Errorf("exit %d after SIGINT, want 130", code)
	}
	rows, rerr := rowfile.ReadAll(filepath.Join(out, "requests.parquet"))
	if rerr != nil {
		t.Fatalf("requests.parquet after SIGINT: %v", rerr)
	}
	if len(rows) == 0 || len(rows) >= 456 {
		t.Fatalf("%d rows after SIGINT 6 s into a 2-minute trace", len(rows))
	}
	canceled := 0
	for _, r := range rows {
		if r.DoneNS == 0 {
			t.Fatalf("row %s has no end time", r.RequestID)
		}
		if r.ErrorClass == "canceled" {
			canceled++
		}
	}
	t.Logf("%d rows, %d of them canceled in flight", len(rows), canceled)
	if _, err := os.Stat(filepath.Join(out, "summary.json")); err != nil {
		t.Fatalf("no summary after SIGINT: %v", err)
	}
	// A clean close leaves the folder as it always was: the crash journal is gone.
	if _, err := os.Stat(filepath.Join(out, "requests.journal")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("requests.journal after a clean close: %v", err)
	}
}

// TestRunFailuresExitNonZero: a run whose every request failed must not exit 0.
func TestRunFailuresExitNonZero(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command(replayBin(t), "run", "--speed", "16", "--limit", "40", "--sim-fault-error-rate", "1", "--max-lateness", "0", "--out", out)
	b, err := cmd.CombinedOutput()
	if code := exitCode(err); code != 3 {
		t.Fatalf("exit %d, want 3 when every request failed:\n%s", code, b)
	}
	if !strings.Contains(string(b), "40 of 40 requests failed") {
		t.Fatalf("output does not say how many failed:\n%s", b)
	}
	rows, err := rowfile.ReadAll(filepath.Join(out, "requests.parquet"))
	if err != nil || len(rows) != 40 || rows[0].ErrorClass != "http_5xx" {
		t.Fatalf("rows %d (%v), want 40 http_5xx rows", len(rows), err)
	}
}

// TestRunRefusesRealEndpointWithoutTokenizer: counting a real model's prompts with the sample
// tokenizer is the error the tool exists to prevent.
func TestRunRefusesRealEndpointWithoutTokenizer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"object":"list","data":[{"id":"m","object":"model","owned_by":"someone"}]}`) // names no tokenizer
	}))
	defer srv.Close()
	cmd := exec.Command(replayBin(t), "run", "--endpoint", srv.URL+"/v1", "--model", "m", "--out", t.TempDir())
	b, err := cmd.CombinedOutput()
	if exitCode(err) == 0 || !strings.Contains(string(b), "--tokenizer is required") {
		t.Fatalf("exit %d:\n%s", exitCode(err), b)
	}
}

// TestRunBadTrace: bad input names the file and line and exits non-zero.
func TestRunBadTrace(t *testing.T) {
	p := testenv.WriteMooncake(t, "bad.jsonl", []testenv.MooncakeRecord{
		{Timestamp: 0, InputLength: 10, OutputLength: 2, HashIDs: []int{1}},
		{Timestamp: 5, InputLength: -3, OutputLength: 2, HashIDs: []int{2}},
	})
	cmd := exec.Command(replayBin(t), "run", "--trace", p, "--tokenizer", testenv.SampleTokenizer(), "--out", t.TempDir())
	b, err := cmd.CombinedOutput()
	if exitCode(err) != 1 || !strings.Contains(string(b), "bad.jsonl:2") {
		t.Fatalf("exit %d, want 1 with the file and line:\n%s", exitCode(err), b)
	}
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)
