//go:build windows

package client

import "syscall"

// limitErrnos: Windows reports socket limits as Winsock errors (the syscall package's
// EMFILE and friends are invented values that the net package never returns).
var limitErrnos = []error{
	syscall.Errno(4),     // ERROR_TOO_MANY_OPEN_FILES
	syscall.Errno(8),     // ERROR_NOT_ENOUGH_MEMORY
	syscall.Errno(14),    // ERROR_OUTOFMEMORY
	syscall.Errno(10024), // WSAEMFILE
	syscall.Errno(10049), // WSAEADDRNOTAVAIL
	syscall.Errno(10055), // WSAENOBUFS
}
