//go:build unix

package tokenizer

import "syscall"

// cpuSeconds is the CPU time (user + system, all threads) this process has used. Benchmarks
// report throughput per CPU-second too, which stays meaningful on a machine shared with other
// work, where wall-clock throughput does not.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
