package client

import (
	"net"
	"syscall"
)

// peerClosed reports whether the server has closed c (or sent bytes no request asked for),
// with one non-blocking peek: an idle HTTP/1.1 connection has nothing to read.
func peerClosed(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	var buf [1]byte
	closed := false
	if err := raw.Read(func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		closed = err == nil || (err != syscall.EAGAIN && err != syscall.EWOULDBLOCK) || n > 0
		return true
	}); err != nil {
		return true
	}
	return closed
}
