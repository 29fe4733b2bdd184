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
	plan      killPlan
	dir       string
	first     *firstWrite // watches for its journal's first row
	firstSeen time.Time   // when that row was seen (zero: not before the kill)
	at        time.Time   // wall time just before the SIGKILL
	err       error
}

// TestRunKilled is the Done-when of "Nothing lost, nothing misreported": `replay run` killed
// with SIGKILL at 24 moments (12 spread at random over 1.5-12 s, 6 at a journal write, 6 a
// tight 0.2-5 ms after one), then `replay report DIR` must rebuild each run's files, and the
// recovered rows must hold, each once, every request that finished more than 1 s before the
// kill. Which requests had finished comes from a reference run of the same trace, run at
// the same time and stopped with SIGINT after 13.5 s (a clean close), whose done offsets are
// shifted by how much later the killed run's own rows came than the reference's and counted
// from a time no earlier than the killed run's clock started (clockBound). A writer that holds
// rows 1.5 s before journaling them fails it. The runs go
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

// startRun starts `replay run` of trace into dir and waits until it says it will send.
func startRun(t *testing.T, bin, trace, dir string) (*exec.Cmd, *syncBuffer, error) {
	cmd := exec.Command(bin, "run", "--trace", trace, "--speed", "1", "--max-lateness", "0", "--out", dir)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(stderr.String(), "open-loop replay"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			return nil, nil, fmt.Errorf("run did not start sending within 60 s:\n%s", stderr.String())
		}
	}
	return cmd, stderr, nil
}

// firstWrite watches a journal for its first row: the wall time it was seen to grow past its
// header. A row done at d on the run's clock was written no earlier than clock start + d, so
// that time less the first record's d is a time no earlier than the run's clock started. The
// run says it starts sending before the warmup, the first prompts' build and the preconnect,
// which on a loaded machine took over a second (CI: requests reported missing 1.1 s early), so
// that line cannot stand for the clock's start.
type firstWrite struct {
	mu   sync.Mutex
	seen time.Time
	stop chan struct{}
}

// watchFirstWrite polls path every 2 ms until it holds more than a header, or stop.
func watchFirstWrite(path string) *firstWrite {
	fw := &firstWrite{stop: make(chan struct{})}
	go func() {
		for {
			if st, err := os.Stat(path); err == nil && st.Size() > rowfile.JournalHeaderLen {
				fw.mu.Lock()
				fw.seen = time.Now()
				fw.mu.Unlock()
				return
			}
			select {
			case <-fw.stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return fw
}

// end stops the watch and returns when the first row was seen (zero if never).
func (fw *firstWrite) end() time.Time {
	close(fw.stop)
	fw.mu.Lock()
	defer fw.mu.Unlock()
	return fw.seen
}

// referenceRun replays trace and stops it with SIGINT after 13.5 s; it returns the rows of
// the requests that finished.
func referenceRun(t *testing.T, bin, trace string) ([]results.Row, error) {
	dir := t.TempDir()
	cmd, stderr, err := startRun(t, bin, trace, dir)
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
	cmd, _, err := startRun(t, bin, trace, kr.dir)
	if err != nil {
		kr.err = err
		return kr
	}
	kr.first = watchFirstWrite(filepath.Join(kr.dir, "requests.journal"))
	time.Sleep(p.after)
	if p.onWrite {
		waitForWrite(filepath.Join(kr.dir, "requests.journal"), 5*time.Second)
		time.Sleep(p.extra)
	}
	kr.at = time.Now()
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	kr.firstSeen = kr.first.end()
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
	var first *results.Row
	info, err := rowfile.ReadJournal(filepath.Join(kr.dir, "requests.journal"), func(r results.Row) error {
		if first == nil {
			first = &r
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	rows, err := rowfile.ReadAll(filepath.Join(kr.dir, "requests.parquet"))
	if err != nil || int64(len(rows)) != n || info.Rows != n {
		t.Fatalf("%s: requests.parquet %d rows (%v), journal %d, report said %d", name, len(rows), err, info.Rows, n)
	}
	checkSummary(t, name, kr.dir, n)
	lag := checkRows(t, name, kr, info.Created, clockBound(kr, first), rows, ref)
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

// clockBound is a time no earlier than the killed run's clock started: when its journal's
// first row was seen, less that row's done offset; the kill itself when no row was seen.
func clockBound(kr *killedRun, first *results.Row) time.Time {
	if first == nil || kr.firstSeen.IsZero() {
		return kr.at
	}
	return kr.firstSeen.Add(-time.Duration(first.DoneNS))
}

// checkRows: no request twice, none that finished after the kill, and every request that
// finished more than 1 s before it. created is when the journal was made, before the run's
// clock started; clock is a time no earlier than that start (clockBound). It returns how much
// later this run's requests finished than the same requests of the reference (at most), which
// shifts the reference's offsets.
func checkRows(t *testing.T, name string, kr *killedRun, created, clock time.Time, rows, ref []results.Row) time.Duration {
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
		// created is before the clock's start: done can only be later than this.
		if done := created.Add(time.Duration(r.DoneNS)); !r.OK() || r.DoneNS <= 0 || done.After(kr.at.Add(50*time.Millisecond)) {
			t.Fatalf("%s: row %s (error %q) done at %v, %v after the kill", name, r.RequestID, r.ErrorClass, done, done.Sub(kr.at))
		}
		if d, ok := refDone[r.RequestID]; ok {
			lag = max(lag, time.Duration(r.DoneNS-d))
		}
	}
	if lag > 2*time.Second {
		t.Fatalf("%s: this run lagged the reference by %v: the comparison would say nothing", name, lag)
	}
	for _, r := range ref {
		if done := clock.Add(time.Duration(r.DoneNS) + lag); done.Before(kr.at.Add(-time.Second)) && !seen[r.RequestID] {
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
