package ingest

import (
	"os"
	"runtime/debug"
)

// StreamGCPercent is the garbage-collector target (GOGC) replay ingest runs the readers under
// when it only converts a trace (with --stats it keeps what it counts, and its heap grows). A streaming reader keeps a live heap
// of about 2 MB, so under Go's default of 100 the collector runs every ~4 MB of allocation:
// about every 16,000 Mooncake records, whose hash slices are the allocation, and 20% of the read
// goes to it. At 400 it runs a quarter as often for a heap of about 10 MB.
const StreamGCPercent = 400

// SetStreamGC applies StreamGCPercent unless the user chose one with $GOGC, and returns the
// function that restores the previous setting.
func SetStreamGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(StreamGCPercent)
	return func() { debug.SetGCPercent(old) }
}
