//go:build race

package sim

// raceEnabled: the race detector allows at most 8128 live goroutines, so tests that hold
// thousands of requests at once hold fewer under it.
const raceEnabled = true
