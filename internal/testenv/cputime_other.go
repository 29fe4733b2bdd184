//go:build !unix

package testenv

import "time"

// CPUTime is unknown here: 0, and benchmarks leave their per-CPU-second figures out.
func CPUTime() time.Duration { return 0 }
