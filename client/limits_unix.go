//go:build unix || js || wasip1

package client

import "syscall"

// limitErrnos: too many open files (process, system), no free local address or port, no
// socket buffer space, out of memory.
var limitErrnos = []error{syscall.EMFILE, syscall.ENFILE, syscall.EADDRNOTAVAIL, syscall.ENOBUFS, syscall.ENOMEM}
