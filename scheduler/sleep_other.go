//go:build !linux

package scheduler

import "time"

// preciseSleepAvailable is false where no sharper sleep than the runtime's timers is known;
// the dispatcher then spins for the last stretch instead.
const preciseSleepAvailable = false

func sharpenTimers()             {}
func restoreTimers()             {}
func preciseSleep(time.Duration) {}
