package runload

import (
	"os"
	"runtime/debug"
	"sync"
)

// LoadGCPercent is the garbage collector's target (GOGC) while LoadDir aggregates a run's rows.
// What stays live is the aggregation's per-request samples (about 33 bytes a request: each
// send, TTFT and e2e, for the arrival measures, the per-window TTFT percentiles and run
// comparison), so the heap grows with the run; under Go's default of 100 the collector lets it
// reach twice that. On a 10M-row file (BenchmarkRead's writer) `replay report` peaked at
// 913-982 MiB RSS under 100 and 744-776 MiB under 25, 3-5% slower: the samples hold no
// pointers, so a collection marks little however large they are, and the read's garbage is
// the rows' strings. It holds from the first row: held only from the 100,000th or the
// 1,000,000th, the 10M report still peaked at 847-906 MiB (measured); from the first it costs
// about 0.1 s of CPU on a 288k-row report.
const LoadGCPercent = 25

// The target is process-wide: loads that overlap share it, and the last one to end puts back
// what was there before the first.
var loadGC struct {
	sync.Mutex
	users int
	prev  int
}

// holdLoadGC applies LoadGCPercent unless the user chose a target with $GOGC, and returns
// the function that releases it.
func holdLoadGC() (release func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	loadGC.Lock()
	defer loadGC.Unlock()
	if loadGC.users == 0 {
		loadGC.prev = debug.SetGCPercent(LoadGCPercent)
	}
	loadGC.users++
	return sync.OnceFunc(func() {
		loadGC.Lock()
		defer loadGC.Unlock()
		if loadGC.users--; loadGC.users == 0 {
			debug.SetGCPercent(loadGC.prev)
		}
	})
}
