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
// reach twice that. The samples hold no pointers, so a collection marks little however large
// they are, and the read's garbage is the rows' strings: a lower target costs a few percent of
// the read and keeps a 10M-row report under 1 GiB (BENCHMARKS.md, "Results reader"), and it
// holds from the first row (held only from a later row, the report peaked higher).
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
