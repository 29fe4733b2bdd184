//go:build unix

package rowfile

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive advisory lock (flock) on f and reports false only when another
// open file holds it. The writer holds its journal's for the run, and the kernel drops it when
// the process ends, however it ends; Recover tries it, so it never rebuilds the file of a run
// that is still going. A filesystem without locks counts as unlocked.
func tryLock(f *os.File) bool {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	return !errors.Is(err, syscall.EWOULDBLOCK)
}
