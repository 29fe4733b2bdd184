// Command slurmcheck judges the merged run of e2e/slurm/e2e.sh: the merged requests.parquet
// holds exactly the request ids of an unsharded replay of the same trace, each once, and the
// combined schedule's server-clock lateness (each request's arrival in replay sim's
// --arrival-log, against its instant in the schedule: the shards' shared start plus the row's
// scheduled offset) has its p99 within a bound. The unsharded run's own lateness, measured the
// same way, is printed beside it for comparison. It prints one line of figures and exits 1 on
// a failed check, naming it.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/shard"
)

func main() {
	merged := flag.String("merged", "", "the merged run folder (replay merge --out)")
	reference := flag.String("reference", "", "the unsharded run's folder, of the same trace")
	shardDir := flag.String("shard", "", "one shard's folder, for the shared start (shard.json)")
	arrivals := flag.String("arrivals", "", "replay sim's --arrival-log of the sharded run")
	refArrivals := flag.String("reference-arrivals", "", "replay sim's --arrival-log of the unsharded run")
	refStart := flag.String("reference-start", "", "the unsharded run's --start-at")
	maxP50 := flag.Duration("max-p50", 2*time.Millisecond, "the largest server-clock lateness median that passes: a shard that read the start wrong is off by tens of ms or more")
	maxTail := flag.Duration("max-p99-over-reference", 10*time.Millisecond, "how far the shards' server-clock p99 may exceed one process's on the same machine and trace")
	flag.Parse()
	refP99, err := describeReference(*reference, *refArrivals, *refStart)
	if err != nil {
		fmt.Fprintln(os.Stderr, "slurmcheck:", err)
		os.Exit(1)
	}
	if err := check(*merged, *reference, *shardDir, *arrivals, *maxP50, refP99+float64(*maxTail)/1e6); err != nil {
		fmt.Fprintln(os.Stderr, "slurmcheck:", err)
		os.Exit(1)
	}
}

// check holds the merged run to the unsharded one's request ids and its schedule as the server
// saw it: the median within maxP50 (a start read wrong moves it by tens of milliseconds or
// more) and the tail within maxP99 ms (one process's own p99 on this machine plus a margin:
// the tail of four senders and the server on two cores is the machine's, 2.8-8 ms on a CI
// machine where a quiet one gives about 1 ms; BENCHMARKS.md, "Shards", keeps the quiet figure).
func check(merged, reference, shardDir, arrivalLog string, maxP50 time.Duration, maxP99 float64) error {
	rows, err := rowfile.ReadAll(filepath.Join(merged, "requests.parquet"))
	if err != nil {
		return err
	}
	ref, err := rowfile.ReadAll(filepath.Join(reference, "requests.parquet"))
	if err != nil {
		return err
	}
	if err := sameIDs(rows, ref); err != nil {
		return err
	}
	info, err := shard.ReadInfo(shardDir)
	if err != nil {
		return err
	}
	arr, err := readArrivals(arrivalLog)
	if err != nil {
		return err
	}
	late, err := lateness(rows, arr, info.StartAt, arrivalLog)
	if err != nil {
		return err
	}
	fmt.Printf("merged rows %d = unsharded rows %d, same request ids; the 4 shards' server-clock lateness ms: %s\n",
		len(rows), len(ref), figures(late))
	if p50 := pct(late, 50); p50 > float64(maxP50)/1e6 {
		return fmt.Errorf("server-clock lateness p50 %.3f ms: want at most %v (did a shard read the start wrong?)", p50, maxP50)
	}
	if p99 := pct(late, 99); maxP99 > 0 && p99 > maxP99 {
		return fmt.Errorf("server-clock lateness p99 %.3f ms: want at most %.3f ms (one process's p99 here plus the margin)", p99, maxP99)
	}
	if late[0] < -1 {
		return fmt.Errorf("a request reached the server %.3f ms before its time: a shard read the start wrong", -late[0])
	}
	return nil
}

// describeReference prints the unsharded run's server-clock lateness, for comparison, and
// returns its p99 in ms (0 without an arrival log).
func describeReference(dir, arrivalLog, start string) (float64, error) {
	if arrivalLog == "" {
		return 0, nil
	}
	at, err := shard.ParseStartAt(start)
	if err != nil {
		return 0, err
	}
	rows, err := rowfile.ReadAll(filepath.Join(dir, "requests.parquet"))
	if err != nil {
		return 0, err
	}
	arr, err := readArrivals(arrivalLog)
	if err != nil {
		return 0, err
	}
	late, err := lateness(rows, arr, at, arrivalLog)
	if err != nil {
		return 0, err
	}
	fmt.Printf("one process, the same trace: server-clock lateness ms: %s\n", figures(late))
	return pct(late, 99), nil
}

// lateness is each row's arrival at the server less its instant in the schedule, in ms,
// sorted; every row must have arrived, and every arrival be a row's.
func lateness(rows []results.Row, arr map[string]int64, start time.Time, arrivalLog string) ([]float64, error) {
	late := make([]float64, 0, len(rows))
	for _, r := range rows {
		at, ok := arr[r.RequestID]
		if !ok {
			return nil, fmt.Errorf("%s: request %s has a row but never reached the server", arrivalLog, r.RequestID)
		}
		late = append(late, float64(at-start.UnixNano()-r.ScheduledNS)/1e6)
	}
	if len(arr) != len(rows) {
		return nil, fmt.Errorf("%s: %d arrivals for %d rows: a request sent twice, or by no shard", arrivalLog, len(arr), len(rows))
	}
	slices.Sort(late)
	return late, nil
}

func pct(sorted []float64, q int) float64 { return sorted[max(0, (len(sorted)*q-1)/100)] }

func figures(late []float64) string {
	return fmt.Sprintf("min %.3f p50 %.3f p99 %.3f max %.3f", late[0], pct(late, 50), pct(late, 99), late[len(late)-1])
}

// sameIDs checks that the merged rows hold every request id of the reference once, and no other.
func sameIDs(rows, ref []results.Row) error {
	if len(rows) == 0 {
		return errors.New("the merged run has no rows")
	}
	seen := map[string]int{}
	for _, r := range rows {
		seen[r.RequestID]++
	}
	var problems []string
	for _, r := range ref {
		if seen[r.RequestID] != 1 {
			problems = append(problems, fmt.Sprintf("%s %d times", r.RequestID, seen[r.RequestID]))
		}
		delete(seen, r.RequestID)
	}
	for id, n := range seen {
		problems = append(problems, fmt.Sprintf("%s (%d rows) not in the unsharded run", id, n))
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return fmt.Errorf("merged rows %d, unsharded %d; %d request ids differ, e.g. %s", len(rows), len(ref), len(problems),
			strings.Join(problems[:min(5, len(problems))], "; "))
	}
	return nil
}

// readArrivals reads replay sim's --arrival-log: request id -> arrival (Unix ns), when its
// bytes reached the server's kernel where the log has that, else when the handler started.
func readArrivals(path string) (map[string]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]int64{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) != 3 && len(fields) != 4 { // a fourth: the request's traceparent
			return nil, fmt.Errorf("%s:%d: %d fields, want 3 or 4", path, line, len(fields))
		}
		handler, err1 := strconv.ParseInt(fields[0], 10, 64)
		socket, err2 := strconv.ParseInt(fields[2], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s:%d: %q: want Unix nanoseconds", path, line, sc.Text())
		}
		if _, dup := out[fields[1]]; dup {
			return nil, fmt.Errorf("%s:%d: request %s arrived twice", path, line, fields[1])
		}
		out[fields[1]] = handler
		if socket > 0 {
			out[fields[1]] = socket
		}
	}
	return out, sc.Err()
}
