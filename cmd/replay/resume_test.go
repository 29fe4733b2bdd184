package main

import (
	"bufio"
	"encoding/json"
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

// TestResumeAfterKill is the Done-when of `replay run --resume`: a run against a `replay sim`
// process, killed with SIGKILL about half way, then resumed. Every request of the trace has
// exactly one row or is counted lost at the kill (summary.json's requests.lost_at_kill), the
// counts add up to the trace, and the server, whose arrival log spans both parts, saw every
// request exactly once: the lost ones were not sent again and the unsent ones were sent. The
// resumed part's rows lie after the point it resumed at on the run's time line, and the
// verdict names the gap. Stopping with SIGINT (a clean close with requests unsent) resumes
// the same way. With REPLAY_DUCKDB (e2e/duckdb/e2e.sh) DuckDB must count the resumed file's
// rows and request ids as replay does.
func TestResumeAfterKill(t *testing.T) {
	for _, stop := range []struct {
		name string
		sig  os.Signal
	}{{"SIGKILL", os.Kill}, {"SIGINT", syscall.SIGINT}} {
		t.Run(stop.name, func(t *testing.T) { t.Parallel(); resumeAfter(t, stop.sig) })
	}
}

func resumeAfter(t *testing.T, sig os.Signal) {
	bin := replayBin(t)
	tmp := t.TempDir()
	trace := filepath.Join(tmp, "trace.jsonl")
	if b, err := exec.Command(bin, "gen", "--duration", "8s", "--rate", "10", "--seed", "3", "--out", trace).CombinedOutput(); err != nil {
		t.Fatalf("replay gen: %v\n%s", err, b)
	}
	n := countLines(t, trace)
	arrivals := filepath.Join(tmp, "arrivals.tsv")
	url, simCmd := startSimCmd(t, bin, "--tokenizer", testenv.SampleTokenizer(), "--zero-cost", "--token-delay", "5ms", "--arrival-log", arrivals)
	dir := filepath.Join(tmp, "run")
	cmd := exec.Command(bin, "run", "--trace", trace, "--endpoint", url, "--model", "replay-sim",
		"--tokenizer", testenv.SampleTokenizer(), "--checks", "none", "--max-lateness", "0", "--out", dir)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(stderr.String(), "open-loop replay"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("run did not start sending within 60 s:\n%s", stderr)
		}
	}
	time.Sleep(4 * time.Second)
	_ = cmd.Process.Signal(sig)
	_ = cmd.Wait()

	out, err := exec.Command(bin, "run", "--resume", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("replay run --resume: %v\n%s", err, tail(out, 30))
	}
	sum, err := analysis.ReadSummary(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	r := sum.Run.Resume
	if r == nil {
		t.Fatalf("summary.json has no run.resume:\n%s", out)
	}
	q := sum.Requests
	t.Logf("%d requests: %d before the kill, %d lost at it, %d after; gap %.1f s at %.1f s; verdict %q",
		n, r.FinishedBefore, q.LostAtKill, q.Total-r.FinishedBefore, r.GapS, r.ResumedAtS, sum.Verdict)
	if q.Total+q.LostAtKill+q.NotSent != int64(n) || q.LostAtKill != r.LostAtKill {
		t.Errorf("total %d + lost %d + not sent %d, want the trace's %d", q.Total, q.LostAtKill, q.NotSent, n)
	}
	if r.FinishedBefore == 0 || q.Total == r.FinishedBefore {
		t.Errorf("%d finished before the kill of %d in all: the kill was not half way", r.FinishedBefore, q.Total)
	}
	if !strings.HasPrefix(sum.Verdict, "valid: endpoint healthy; resumed after a ") || !strings.Contains(sum.Verdict, "lost at the kill") {
		t.Errorf("verdict %q does not name the resume", sum.Verdict)
	}
	rows, err := rowfile.ReadAll(filepath.Join(dir, "requests.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	resumedAt := int64(r.ResumedAtS * 1e9)
	after := 0
	for _, row := range rows {
		seen[row.RequestID]++
		if row.ScheduledNS >= resumedAt {
			after++
		}
	}
	if int64(len(rows)) != q.Total || len(seen) != len(rows) {
		t.Errorf("%d rows, %d request ids, summary total %d: want one row per request", len(rows), len(seen), q.Total)
	}
	duckCount(t, "resumed run", filepath.Join(dir, "requests.parquet"), q.Total) // with REPLAY_DUCKDB (e2e/duckdb)
	if int64(after) != q.Total-r.FinishedBefore {
		t.Errorf("%d rows scheduled after the resume point, want the %d the resumed part sent", after, q.Total-r.FinishedBefore)
	}
	stopProcess(t, simCmd) // the arrival log is whole once the server has exited
	sent := arrivalCounts(t, arrivals)
	for id, c := range sent {
		if c != 1 {
			t.Errorf("request %s reached the server %d times", id, c)
		}
	}
	if int64(len(sent)) != q.Total+q.LostAtKill {
		t.Errorf("the server saw %d requests, want %d rows + %d lost", len(sent), q.Total, q.LostAtKill)
	}
	for _, f := range []string{"requests.sends", "requests.journal", "requests.before-resume.parquet"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s is left in the resumed run's folder", f)
		}
	}
	again, err := exec.Command(bin, "run", "--resume", dir).CombinedOutput()
	if exitCode(err) != 1 || !strings.Contains(string(again), "nothing to resume") {
		t.Errorf("resuming a finished run: exit %d, %s", exitCode(err), again)
	}
}

// tail is the last n lines of b.
func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// arrivalCounts counts each request id's lines in replay sim's --arrival-log.
func arrivalCounts(t *testing.T, path string) map[string]int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Split(sc.Text(), "\t"); len(fields) == 4 {
			out[fields[1]]++
		}
	}
	return out
}

// countLines is the number of lines of the file at path.
func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// TestRunConfigRepeats: a run's run.yaml, given to --config with another --out, repeats the
// run: the same requests with the same prompts (kept with --keep-prompts) and schedule; a key
// that is no flag exits 1 naming it and its line.
func TestRunConfigRepeats(t *testing.T) {
	bin := replayBin(t)
	tmp := t.TempDir()
	first, second := filepath.Join(tmp, "first"), filepath.Join(tmp, "second")
	if out, err := exec.Command(bin, "run", "--limit", "12", "--seed", "7", "--speed", "8", "--keep-prompts",
		"--sim-zero-cost", "--max-lateness", "0", "--out", first).CombinedOutput(); err != nil {
		t.Fatalf("replay run: %v\n%s", err, out)
	}
	if out, err := exec.Command(bin, "run", "--config", filepath.Join(first, "run.yaml"), "--out", second).CombinedOutput(); err != nil {
		t.Fatalf("replay run --config: %v\n%s", err, out)
	}
	a, err := rowfile.ReadAll(filepath.Join(first, "requests.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := rowfile.ReadAll(filepath.Join(second, "requests.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]string{}
	sched := map[string]int64{}
	for _, r := range a {
		byID[r.RequestID], sched[r.RequestID] = r.Prompt, r.ScheduledNS
	}
	if len(a) != 12 || len(b) != len(a) {
		t.Fatalf("%d and %d rows, want 12 each", len(a), len(b))
	}
	for _, r := range b {
		if p, ok := byID[r.RequestID]; !ok || p != r.Prompt || r.Prompt == "" {
			t.Errorf("request %s: prompt differs from the first run's", r.RequestID)
		}
		if d := r.ScheduledNS - sched[r.RequestID]; d != 0 {
			t.Errorf("request %s: scheduled %d ns apart", r.RequestID, d)
		}
	}
	var cfgA, cfgB map[string]any
	readYAMLKeys(t, filepath.Join(first, "run.yaml"), &cfgA)
	readYAMLKeys(t, filepath.Join(second, "run.yaml"), &cfgB)
	delete(cfgA, "out")
	delete(cfgB, "out")
	if ja, jb := mustJSON(t, cfgA), mustJSON(t, cfgB); ja != jb {
		t.Errorf("the repeat's run.yaml differs but for out:\n%s\n%s", ja, jb)
	}

	bad := filepath.Join(tmp, "bad.yaml")
	if err := os.WriteFile(bad, []byte("speed: 2\nlimit: 3\nspeeed: 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "run", "--config", bad, "--out", filepath.Join(tmp, "bad")).CombinedOutput()
	if exitCode(err) != 1 || !strings.Contains(string(out), `line 3: unknown key "speeed"`) {
		t.Errorf("an unknown key: exit %d, %s", exitCode(err), out)
	}
}

// readYAMLKeys reads a run.yaml's flat keys as strings (or lists of them), the way --config
// sees them.
func readYAMLKeys(t *testing.T, path string, into *map[string]any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{}
	for line := range strings.SplitSeq(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, "#") {
			m[k] = strings.TrimSpace(v)
		}
	}
	*into = m
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
