package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/results/rowfile"
)

// killPlan is one SIGKILL of `replay run`: after a delay from the run's start or, with
// onWrite, at the first journal write after that delay plus extra (a kill inside or just
// after a row write).
type killPlan struct {
	after   time.Duration
	onWrite bool
	extra   time.Duration
}

// killedRun is what one killed run left and when it was killed.
type killedRun struct {
	plan    killPlan
	dir     string
	sending time.Time // wall time the run was seen to say it started sending
	at      time.Time // wall time just before the SIGKILL
	err     error
}

// TestRunKilled is the Done-when of "Nothing lost, nothing misreported": `replay run` killed
// with SIGKILL at 24 moments (12 spread at random over 1.5-12 s, 6 at a journal write, 6 a
// tight 0.2-5 ms after one), then `replay report DIR` must rebuild each run's files, and the
// recovered rows must hold, each once, every request that finished more than 1 s before the
// kill. Which requests had finished comes from a reference run of the same trace, run at
// the same time and stopped with SIGINT after 13.5 s (a clean close), whose done offsets are
// shifted by how much later the killed run's own rows came than the reference's. The runs go
// in three waves of eight kills and a reference each (see killWaves), about 50 s in all. With REPLAY_DUCKDB
// naming a built e2e/duckdb (e2e/duckdb/e2e.sh builds it and runs this test), DuckDB must
// count the same rows and distinct request ids in every recovered file.
func TestRunKilled(t *testing.T) {
	bin := replayBin(t)
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	if b, err := exec.Command(bin, "gen", "--duration", "14s", "--rate", "6", "--seed", "3", "--out", trace).CombinedOutput(); err != nil {
		t.Fatalf("replay gen: %v\n%s", err, b)
	}
	seed := uint64(time.Now().UnixNano())
	plans := killPlans(rand.New(rand.NewPCG(seed, 1)))
	t.Logf("kill delays drawn with seed %d", seed)
	if os.Getenv("REPLAY_DUCKDB") == "" {
		t.Logf("REPLAY_DUCKDB unset: recovered files are checked with parquet-go through internal/pqcheck, not DuckDB (e2e/duckdb/e2e.sh sets it)")
	}
	minRows, maxRows, torn, refRows := int64(1<<62), int64(0), 0, 0
	for w := 0; w < killWaves; w++ {
		var wave []killPlan
		for i := w; i < len(plans); i += killWaves {
			wave = append(wave, plans[i])
		}
		ref, runs := killWave(t, bin, trace, wave)
		refRows += len(ref)
		for i := range runs {
			n, dropped := checkKilled(t, bin, &runs[i], ref)
			minRows, maxRows = min(minRows, n), max(maxRows, n)
			if dropped {
				torn++
			}
		}
	}
	t.Logf("%d kills: %d-%d rows recovered per kill, %d with a torn or damaged tail dropped; references: %d finished rows in %d waves",
		len(plans), minRows, maxRows, torn, refRows, killWaves)
}

// killWaves is how many waves the kills run in. A run at 1x takes about an eighth of a core
// (its own simulator streams every token), so 24 at once starve each other on a 2-core
// machine: a starved run finishes nothing for seconds, and the reference, starved
// differently, no longer says what it should have finished. Eight kills and their reference
// at a time fit.
const killWaves = 3

// killWave runs one reference and the kills of plans side by side.
func killWave(t *testing.T, bin, trace string, plans []killPlan) ([]results.Row, []killedRun) {
	var wg sync.WaitGroup
	var ref []results.Row
	var refErr error
	wg.Add(1)
	go func() { defer wg.Done(); ref, refErr = referenceRun(t, bin, trace) }()
	runs := make([]killedRun, len(plans))
	for i, p := range plans {
		wg.Add(1)
		go func() { defer wg.Done(); runs[i] = killRun(t, bin, trace, p) }()
	}
	wg.Wait()
	if refErr != nil {
		t.Fatalf("reference run: %v", refErr)
	}
	return ref, runs
}

// killPlans draws the kill moments.
func killPlans(rng *rand.Rand) []killPlan {
	var ps []killPlan
	for i := 0; i < 12; i++ { // stratified: one in each 0.875 s of 1.5-12 s
		ps = append(ps, killPlan{after: 1500*time.Millisecond + time.Duration((float64(i)+rng.Float64())*875e6)})
	}
	for i := 0; i < 6; i++ {
		ps = append(ps, killPlan{after: 2*time.Second + time.Duration((float64(i)+rng.Float64())*1.5e9), onWrite: true})
	}
	for i, extra := range []time.Duration{200 * time.Microsecond, 500 * time.Microsecond, time.Millisecond,
		2 * time.Millisecond, 3 * time.Millisecond, 5 * time.Millisecond} {
		ps = append(ps, killPlan{after: 2*time.Second + time.Duration((float64(i)+rng.Float64())*1.5e9), onWrite: true, extra: extra})
	}
	return ps
}

// startRun starts `replay run` of trace into dir and waits until it starts sending; the
// returned time is when that was seen, no earlier than the run's clock started.
func startRun(t *testing.T, bin, trace, dir string) (*exec.Cmd, *syncBuffer, time.Time, error) {
	cmd := exec.Command(bin, "run", "--trace", trace, "--speed", "1", "--max-lateness", "0", "--out", dir)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, nil, time.Time{}, err
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(stderr.String(), "open-loop replay"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			return nil, nil, time.Time{}, fmt.Errorf("run did not start sending within 60 s:\n%s", stderr.String())
		}
	}
	return cmd, stderr, time.Now(), nil
}

// referenceRun replays trace and stops it with SIGINT after 13.5 s; it returns the rows of
// the requests that finished.
func referenceRun(t *testing.T, bin, trace string) ([]results.Row, error) {
	dir := t.TempDir()
	cmd, stderr, _, err := startRun(t, bin, trace, dir)
	if err != nil {
		return nil, err
	}
	time.Sleep(13500 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		return nil, err
	}
	if code := exitCode(cmd.Wait()); code != 130 {
		return nil, fmt.Errorf("exit %d after SIGINT, want 130:\n%s", code, stderr.String())
	}
	rows, err := rowfile.ReadAll(filepath.Join(dir, "requests.parquet"))
	var done []results.Row
	for _, r := range rows {
		if r.OK() {
			done = append(done, r)
		}
	}
	return done, err
}

// killRun starts a run and kills it as p says.
func killRun(t *testing.T, bin, trace string, p killPlan) killedRun {
	kr := killedRun{plan: p, dir: t.TempDir()}
	cmd, _, sending, err := startRun(t, bin, trace, kr.dir)
	if err != nil {
		kr.err = err
		return kr
	}
	kr.sending = sending
	time.Sleep(p.after)
	if p.onWrite {
		waitForWrite(filepath.Join(kr.dir, "requests.journal"), 5*time.Second)
		time.Sleep(p.extra)
	}
	kr.at = time.Now()
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	return kr
}

// waitForWrite returns as soon as the file at path grows, or after timeout.
func waitForWrite(path string, timeout time.Duration) {
	size := func() int64 {
		st, err := os.Stat(path)
		if err != nil {
			return -1
		}
		return st.Size()
	}
	n0 := size()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline) && size() == n0; {
		time.Sleep(200 * time.Microsecond)
	}
}

var recoveredLine = regexp.MustCompile(`run was cut \(no clean close\): recovered (\d+) rows from requests\.journal`)

// checkKilled runs `replay report` on a killed run and checks what it recovered against the
// reference rows; it returns the rows recovered and whether a torn or damaged tail was dropped.
func checkKilled(t *testing.T, bin string, kr *killedRun, ref []results.Row) (int64, bool) {
	t.Helper()
	name := fmt.Sprintf("kill at %v (on write %v +%v)", kr.plan.after.Round(time.Millisecond), kr.plan.onWrite, kr.plan.extra)
	if kr.err != nil {
		t.Fatalf("%s: %v", name, kr.err)
	}
	out, err := exec.Command(bin, "report", kr.dir, "--quiet").CombinedOutput()
	m := recoveredLine.FindSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("%s: replay report: %v\n%s", name, err, out)
	}
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	info, err := rowfile.ReadJournal(filepath.Join(kr.dir, "requests.journal"), func(results.Row) error { return nil })
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	rows, err := rowfile.ReadAll(filepath.Join(kr.dir, "requests.parquet"))
	if err != nil || int64(len(rows)) != n || info.Rows != n {
		t.Fatalf("%s: requests.parquet %d rows (%v), journal %d, report said %d", name, len(rows), err, info.Rows, n)
	}
	checkSummary(t, name, kr.dir, n)
	lag := checkRows(t, name, kr, info.Created, rows, ref)
	duckCount(t, name, filepath.Join(kr.dir, "requests.parquet"), n)
	t.Logf("%s: %d rows recovered, lag behind the reference %v, %s", name, n, lag.Round(time.Millisecond), orNone(info.Dropped))
	return n, info.Dropped != ""
}

func orNone(s string) string {
	if s == "" {
		return "nothing dropped"
	}
	return s
}

// checkSummary: summary.json marks the run recovered and counts the recovered rows.
func checkSummary(t *testing.T, name, dir string, n int64) {
	t.Helper()
	var sum struct {
		Run struct {
			Recovered bool              `json:"recovered"`
			Recovery  *results.Recovery `json:"recovery"`
		} `json:"run"`
		Requests struct{ Total int64 } `json:"requests"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err == nil {
		err = json.Unmarshal(b, &sum)
	}
	if err != nil || !sum.Run.Recovered || sum.Run.Recovery == nil || sum.Run.Recovery.Rows != n || sum.Requests.Total != n {
		t.Fatalf("%s: summary.json (%v):\n%s", name, err, b)
	}
}

// checkRows: no request twice, none that finished after the kill, and every request that
// finished more than 1 s before it. It returns how much later this run's requests finished
// than the same requests of the reference (at most), which shifts the reference's offsets.
func checkRows(t *testing.T, name string, kr *killedRun, start time.Time, rows, ref []results.Row) time.Duration {
	t.Helper()
	refDone := map[string]int64{}
	for _, r := range ref {
		refDone[r.RequestID] = r.DoneNS
	}
	seen := map[string]bool{}
	var lag time.Duration
	for _, r := range rows {
		if seen[r.RequestID] {
			t.Fatalf("%s: request %s twice", name, r.RequestID)
		}
		seen[r.RequestID] = true
		// start is when the writer was made, just before the run's clock: done can only be later.
		if done := start.Add(time.Duration(r.DoneNS)); !r.OK() || r.DoneNS <= 0 || done.After(kr.at.Add(50*time.Millisecond)) {
			t.Fatalf("%s: row %s (error %q) done at %v, %v after the kill", name, r.RequestID, r.ErrorClass, done, done.Sub(kr.at))
		}
		if d, ok := refDone[r.RequestID]; ok {
			lag = max(lag, time.Duration(r.DoneNS-d))
		}
	}
	if lag > 2*time.Second {
		t.Fatalf("%s: this run lagged the reference by %v: the comparison would say nothing", name, lag)
	}
	// The writer is made before the plan is counted and the clock started, seconds before on a
	// loaded machine, so "finished before the kill" counts from when the run was seen sending
	// (no earlier than its clock): a run killed before its first row has no lag to correct by.
	for _, r := range ref {
		if done := kr.sending.Add(time.Duration(r.DoneNS) + lag); done.Before(kr.at.Add(-time.Second)) && !seen[r.RequestID] {
			t.Errorf("%s: request %s finished %v before the kill and is missing", name, r.RequestID, kr.at.Sub(done))
		}
	}
	return lag
}

// duckCount asks DuckDB (REPLAY_DUCKDB, a built e2e/duckdb) to count the file's rows and
// distinct request ids; without it the file was read by parquet-go through internal/pqcheck.
func duckCount(t *testing.T, name, path string, n int64) {
	t.Helper()
	duck := os.Getenv("REPLAY_DUCKDB")
	if duck == "" {
		return
	}
	out, err := exec.Command(duck, path).CombinedOutput()
	if want := fmt.Sprintf("rows %d distinct_request_ids %d", n, n); err != nil || strings.TrimSpace(string(out)) != want {
		t.Fatalf("%s: DuckDB on %s: %v: %q, want %q", name, path, err, out, want)
	}
}
