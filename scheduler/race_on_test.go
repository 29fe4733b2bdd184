//go:build race

package scheduler

// raceEnabled: the race detector slows every goroutine hand-off several times over, so
// real-time bounds are not checked under it.
const raceEnabled = true
