//go:build linux

package scheduler

import (
	"syscall"
	"time"
)

// preciseSleepAvailable says whether preciseSleep beats a runtime timer on this platform.
const preciseSleepAvailable = true

// prSetTimerSlack is prctl's PR_SET_TIMERSLACK.
const prSetTimerSlack = 29

// sharpenTimers asks Linux to wake this thread within 1 ns of its sleep's end instead of the
// default 50 µs slack. The caller must be locked to its OS thread (the slack is per thread).
func sharpenTimers() {
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerSlack, 1, 0)
}

// restoreTimers puts back the default slack before the thread returns to the runtime's pool.
func restoreTimers() {
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerSlack, 50_000, 0)
}

// preciseSleep blocks the thread in nanosleep(2). The Go runtime's timers wake through
// epoll_pwait, whose timeout is whole milliseconds, which is why time.Sleep overshoots by up
// to a millisecond here; nanosleep wakes within tens of microseconds. An interrupted sleep
// returns early; callers re-check the clock.
func preciseSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	syscall.Nanosleep(&ts, nil)
}
