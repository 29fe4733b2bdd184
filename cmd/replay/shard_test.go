package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results/rowfile"
)

// shardRun starts one `replay run` shard against url; it returns the command and its stderr.
func shardRun(t *testing.T, bin, url, trace, out string, k, n int, startAt time.Time, flags ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	args := append([]string{"run", "--endpoint", url, "--model", "replay-sim", "--tokenizer", testenv.SampleTokenizer(),
		"--trace", trace, "--metrics-url", "none", "--out", out,
		"--shard", fmt.Sprintf("%d/%d", k, n), "--start-at", fmt.Sprintf("%.6f", float64(startAt.UnixNano())/1e9)}, flags...)
	cmd := exec.Command(bin, args...)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stderr
}

// readArrivals reads replay sim's --arrival-log: request id -> arrival (Unix ns), when its
// bytes reached the server's kernel where the log has that (the sends' own timing), else when
// the handler started (which adds the server's wake-up).
func readArrivals(t *testing.T, path string) map[string]int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 4 { // handler ns, id, socket ns, traceparent
			t.Fatalf("%s: bad line %q", path, sc.Text())
		}
		handler, err1 := strconv.ParseInt(f[0], 10, 64)
		socket, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: bad line %q", path, sc.Text())
		}
		out[f[1]] = handler
		if socket > 0 {
			out[f[1]] = socket
		}
	}
	return out
}

func rowIDs(t *testing.T, path string) []string {
	t.Helper()
	rows, err := rowfile.ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 0, len(rows))
	for _, r := range rows {
		ids = append(ids, r.RequestID)
	}
	slices.Sort(ids)
	return ids
}

// A trace replayed as 4 shards in 4 processes against one server, then merged, has exactly the
// rows of one process's replay, and every shard keeps the unsharded schedule as the server
// sees it: its median server-clock lateness within 2 ms. A shard that read --start-at wrong,
// or paced from its own start, is off by tens of milliseconds to seconds at its median; the
// tail is this machine's to give (on a quiet machine p99 0.3 ms; a CI machine read 2.8-8 ms
// five times running with nothing else in the package running), so the tail is a benchmark
// figure (BENCHMARKS.md, "Shards"), not a test's.
func TestShardsMergeExactly(t *testing.T) {
	bin := replayBin(t)
	const n, rate = 400, 100.0
	trace := writeRateTrace(t, n, rate, 4)

	// The reference: one process replays the whole schedule from a shared instant too, so its
	// server-clock lateness is the figure the shards' is read against (BENCHMARKS.md).
	refArrivals := filepath.Join(t.TempDir(), "arrivals.tsv")
	refURL, refSim := startSimCmd(t, bin, "--tokenizer", testenv.SampleTokenizer(), "--zero-cost", "--arrival-log", refArrivals)
	refAt := time.Now().Add(2 * time.Second)
	code, refDir, stderr, _ := runAgainst(t, bin, refURL, trace, 0, "--metrics-url", "none", "--max-lateness", "0",
		"--start-at", fmt.Sprintf("%.6f", float64(refAt.UnixNano())/1e9))
	if code != 0 {
		t.Fatalf("single-process reference: exit %d\n%s", code, stderr)
	}
	want := rowIDs(t, filepath.Join(refDir, "requests.parquet"))
	stopProcess(t, refSim)
	ref := serverLateness(t, readArrivals(t, refArrivals), want, refAt, rate)

	arrivals := filepath.Join(t.TempDir(), "arrivals.tsv")
	url, sim := startSimCmd(t, bin, "--tokenizer", testenv.SampleTokenizer(), "--zero-cost", "--arrival-log", arrivals)
	startAt := time.Now().Add(4 * time.Second) // time for four processes to build their prompts
	dirs := make([]string, 4)
	cmds := make([]*exec.Cmd, 4)
	errs := make([]*syncBuffer, 4)
	for k := range dirs {
		dirs[k] = t.TempDir()
		cmds[k], errs[k] = shardRun(t, bin, url, trace, dirs[k], k, 4, startAt, "--max-lateness", "0")
	}
	for k, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("shard %d: %v\n%s", k, err, errs[k].String())
		}
	}
	merged := filepath.Join(t.TempDir(), "merged")
	if out, err := exec.Command(bin, append([]string{"merge", "--out", merged}, dirs...)...).CombinedOutput(); err != nil {
		t.Fatalf("merge: %v\n%s", err, out)
	}
	if got := rowIDs(t, filepath.Join(merged, "requests.parquet")); !slices.Equal(got, want) {
		t.Fatalf("merged rows: %d ids, the single process's %d; first differences: %v", len(got), len(want), firstDiff(got, want))
	}
	stopProcess(t, sim) // the log is flushed when the server stops
	arr := readArrivals(t, arrivals)
	if len(arr) != n {
		t.Fatalf("the server logged %d arrivals, want %d", len(arr), n)
	}
	var all []float64
	for k, dir := range dirs {
		late := serverLateness(t, arr, rowIDs(t, filepath.Join(dir, "requests.parquet")), startAt, rate)
		all = append(all, late...)
		if p50 := late[len(late)/2]; p50 > 2 || late[0] < -1 {
			t.Errorf("shard %d/4: server-clock lateness median %.3f ms (min %.3f) over %d requests: want within 2 ms of the unsharded schedule",
				k, p50, late[0], len(late))
		}
	}
	slices.Sort(all)
	p99 := func(l []float64) float64 { return l[(len(l)*99-1)/100] }
	t.Logf("server-clock lateness of the merged schedule: p50 %.3f ms, p99 %.3f ms, max %.3f ms; one process: p50 %.3f ms, p99 %.3f ms; p99 ratio sharded/one %.2f",
		all[len(all)/2], p99(all), all[len(all)-1], ref[len(ref)/2], p99(ref), p99(all)/p99(ref))
}

// serverLateness is, for each of ids (request ids are the schedule's indexes), its arrival at
// the server minus its instant in the unsharded schedule, in ms, sorted.
func serverLateness(t *testing.T, arr map[string]int64, ids []string, startAt time.Time, rate float64) []float64 {
	t.Helper()
	if len(ids) == 0 {
		t.Fatal("a shard with no rows")
	}
	late := make([]float64, 0, len(ids))
	for _, id := range ids {
		i, err := strconv.Atoi(id)
		if err != nil {
			t.Fatalf("request id %q: want the schedule's index", id)
		}
		at, ok := arr[id]
		if !ok {
			t.Fatalf("request %s never reached the server", id)
		}
		due := startAt.UnixNano() + int64(float64(i)*1e9/rate)
		late = append(late, float64(at-due)/1e6)
	}
	slices.Sort(late)
	return late
}

func firstDiff(a, b []string) []string {
	var d []string
	for _, id := range a {
		if !slices.Contains(b, id) && len(d) < 5 {
			d = append(d, "+"+id)
		}
	}
	for _, id := range b {
		if !slices.Contains(a, id) && len(d) < 10 {
			d = append(d, "-"+id)
		}
	}
	return d
}

// A shard started 2 s after the shared instant sends what is already due at once: its rows
// record the lateness, its verdict is client-bound (exit 5), and the merged verdict says so.
func TestShardStartedLate(t *testing.T) {
	bin := replayBin(t)
	trace := writeRateTrace(t, 200, 50, 4) // 4 s
	url := startSim(t, bin, "--tokenizer", testenv.SampleTokenizer(), "--zero-cost")
	startAt := time.Now().Add(3 * time.Second)
	dirs := []string{t.TempDir(), t.TempDir()}
	onTime, onTimeErr := shardRun(t, bin, url, trace, dirs[0], 0, 2, startAt, "--max-lateness", "0")
	time.Sleep(time.Until(startAt.Add(2 * time.Second)))
	late, lateErr := shardRun(t, bin, url, trace, dirs[1], 1, 2, startAt)
	if err := onTime.Wait(); err != nil {
		t.Fatalf("shard 0: %v\n%s", err, onTimeErr.String())
	}
	if code := exitCode(late.Wait()); code != 5 {
		t.Fatalf("late shard: exit %d, want 5 (client-bound)\n%s", code, lateErr.String())
	}
	rows, err := rowfile.ReadAll(filepath.Join(dirs[1], "requests.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	var worst time.Duration
	for _, r := range rows {
		worst = max(worst, time.Duration(r.SentNS-r.ScheduledNS))
	}
	if worst < 1500*time.Millisecond {
		t.Fatalf("the late shard's worst lateness is %v: want its ~2 s start delay recorded", worst)
	}
	merged := filepath.Join(t.TempDir(), "merged")
	if out, err := exec.Command(bin, append([]string{"merge", "--out", merged}, dirs...)...).CombinedOutput(); err != nil {
		t.Fatalf("merge: %v\n%s", err, out)
	}
	s := readRunSummary(t, merged)
	if !strings.HasPrefix(s.Verdict, "client-bound") || !strings.Contains(s.Verdict, "shard 1") {
		t.Fatalf("merged verdict %q: want client-bound, naming shard 1", s.Verdict)
	}
	t.Logf("late shard's worst lateness %v; merged verdict %q", worst.Round(time.Millisecond), s.Verdict)
}

// --shard auto takes its share from the scheduler's environment and says which it took; with
// no scheduler's variables it exits 1 saying what it looked for. (shard's own tests cover
// every combination; this is the command's wiring.)
func TestShardAuto(t *testing.T) {
	for _, v := range []string{"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX",
		"SLURM_ARRAY_TASK_STEP", "SLURM_JOB_ID", "JOB_COMPLETION_INDEX", "REPLAY_SHARDS"} {
		t.Setenv(v, "")
	}
	code, _, stderr := runCLI(t, "run", "--shard", "auto", "--out", t.TempDir())
	if code != 1 || !strings.Contains(stderr, "--shard auto: no scheduler's index") || !strings.Contains(stderr, "SLURM_ARRAY_TASK_ID") {
		t.Fatalf("no scheduler: exit %d, stderr %q; want 1 and what --shard auto looked for", code, stderr)
	}
	t.Setenv("SLURM_ARRAY_TASK_ID", "3")
	t.Setenv("SLURM_ARRAY_TASK_COUNT", "4")
	code, _, stderr = runCLI(t, "run", "--shard", "auto", "--out", t.TempDir()) // no --start-at: refused after the share is read
	if code != 1 || !strings.Contains(stderr, "replay: --shard auto: shard 3 of 4 (SLURM_ARRAY_TASK_ID=3 of SLURM_ARRAY_TASK_COUNT=4)") ||
		!strings.Contains(stderr, "--shard needs --start-at") {
		t.Fatalf("a Slurm task: exit %d, stderr %q; want its share said, then --start-at asked for", code, stderr)
	}
}
