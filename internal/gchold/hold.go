package gchold

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
)

// The garbage collector is the send path's largest source of lateness at high rates: each
// cycle's mark phase takes a quarter of the processors and makes allocating senders assist,
// for milliseconds, every fraction of a second at 5,000 requests a second (measured with
// scripts/bench-arrival.sh: server-clock lateness p99 2.7-4.0 ms with the default GOGC, 1.0 ms
// with collection off). So while the schedule runs, collection waits for a memory limit of the
// heap in use plus a headroom instead of a doubling of the live heap: a cycle every tens of
// seconds at worst, and no more memory than the limit says.
const (
	// gcMinHeadroom and gcShareOfRAM bound the limit: at least this much above what is in use
	// when the schedule starts (or the live heap again, when larger), at most this share of
	// the machine's memory.
	gcMinHeadroom = 1 << 30
	gcShareOfRAM  = 0.5
	// gcLeastHeadroom is the headroom under which the collector is left as it is: too little
	// room would only make it run more often.
	gcLeastHeadroom = 256 << 20
)

// gcLimit is the memory limit for the schedule. Under a budget (the user's bound on the
// process, budget > 0) it is the budget itself: collection waits until the process nears it,
// and ok is false when what is in use leaves under gcLeastHeadroom of it. Without one it is in
// use plus max(gcMinHeadroom, live), capped at gcShareOfRAM of ram; ok is false when that
// leaves under gcLeastHeadroom, or ram is unknown.
func gcLimit(inUse, live, ram, budget uint64) (limit uint64, ok bool) {
	if budget > 0 {
		return budget, budget >= inUse+gcLeastHeadroom
	}
	if ram == 0 {
		return 0, false
	}
	limit = inUse + max(gcMinHeadroom, live)
	limit = min(limit, uint64(float64(ram)*gcShareOfRAM))
	return limit, limit >= inUse+gcLeastHeadroom
}

// OverBudget is the error of Fits and Hold when the process uses nearly all of its budget
// before the schedule starts: the run's garbage would leave no room, so collection would run
// without pause, or the budget would not hold.
type OverBudget struct {
	// InUse is the memory in use; Ahead what will be added to it before the sends (a plan's
	// prompts built ahead of them); Room the least the run's own allocations need.
	InUse, Ahead, Budget, Room uint64
}

func (e *OverBudget) Error() string {
	ahead := ""
	if e.Ahead > 0 {
		ahead = fmt.Sprintf(", and %.2f GiB of prompts will be built ahead of the sends", float64(e.Ahead)/(1<<30))
	}
	return fmt.Sprintf("%.2f GiB is in use before the first send%s: the %.2f GiB memory budget leaves under %.2f GiB for the run's own allocations",
		float64(e.InUse)/(1<<30), ahead, float64(e.Budget)/(1<<30), float64(e.Room)/(1<<30))
}

// Fits is Hold's budget check made early, before a run starts its targets: collected, is what
// is in use, with ahead more, within budget (bytes, > 0) with room for the run? A nil error
// when it is or there is no budget.
func Fits(budget, ahead uint64) error {
	if budget == 0 || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return nil
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	inUse := ms.Sys - ms.HeapReleased
	if inUse+ahead+gcLeastHeadroom > budget {
		return &OverBudget{InUse: inUse, Ahead: ahead, Budget: budget, Room: gcLeastHeadroom}
	}
	return nil
}

// gcHold is the process's one hold on the collector: the settings are process-wide, so runs
// that overlap in one process (tests, a library caller) share it, and the last to finish puts
// back what the first found.
var gcHold struct {
	sync.Mutex
	holders            int
	prevPct, prevLimit int64
}

// Hold collects once (so no cycle is under way when the first request is due), then sets the
// schedule's memory limit with proportional collection off, and returns what puts the
// collector back. Under a budget (> 0, bytes) the limit is the budget, and Hold fails with
// *OverBudget when what is in use leaves too little of it. It leaves the collector alone when
// the user set GOGC or GOMEMLIMIT (theirs to choose) or, without a budget, there is no room
// for a limit, and says which it did.
func Hold(stderr io.Writer, budget uint64) (restore func(), err error) {
	runtime.GC()
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}, nil
	}
	gcHold.Lock()
	defer gcHold.Unlock()
	if gcHold.holders == 0 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		inUse := ms.Sys - ms.HeapReleased
		limit, ok := gcLimit(inUse, ms.HeapAlloc, MachineMemory(), budget)
		if !ok && budget > 0 {
			return nil, &OverBudget{InUse: inUse, Budget: budget, Room: gcLeastHeadroom}
		}
		if !ok {
			return func() {}, nil
		}
		gcHold.prevLimit = debug.SetMemoryLimit(int64(limit))
		gcHold.prevPct = int64(debug.SetGCPercent(-1))
		what := ""
		if budget > 0 {
			what = ", the memory budget (--memory)"
		}
		fmt.Fprintf(stderr, "replay: garbage collection held back while the schedule runs: it collects near %.1f GiB of memory%s (%.2f GiB in use now), not at every doubling of the heap (set GOGC or GOMEMLIMIT to choose)\n",
			float64(limit)/(1<<30), what, float64(inUse)/(1<<30))
	}
	gcHold.holders++
	var once sync.Once
	return func() {
		once.Do(func() {
			gcHold.Lock()
			defer gcHold.Unlock()
			if gcHold.holders--; gcHold.holders == 0 {
				debug.SetGCPercent(int(gcHold.prevPct))
				debug.SetMemoryLimit(gcHold.prevLimit)
			}
		})
	}, nil
}

// MachineMemory is the memory this process may use: the cgroup's limit when there is one, else
// MemTotal; 0 when neither can be read.
func MachineMemory() uint64 {
	ram := memTotal()
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil && (ram == 0 || v < ram) {
			return v
		}
	}
	return ram
}

// memTotal reads MemTotal from /proc/meminfo (kB), 0 when it cannot.
func memTotal() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil || kb > math.MaxUint64/1024 {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}
