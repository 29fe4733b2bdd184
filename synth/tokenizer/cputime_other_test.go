//go:build !unix

package tokenizer

// cpuSeconds is unknown here; the per-CPU-second metric is then left out.
func cpuSeconds() float64 { return 0 }
