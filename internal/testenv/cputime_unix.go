//go:build unix

package testenv

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time (user + system, all threads) this process has used. Benchmarks report
// work per CPU-second beside wall-clock rates: on a machine shared with other work the first
// stays put while the second swings with the neighbours.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
