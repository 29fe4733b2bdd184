package sim

import (
	"context"
	"io"
	"net"
	"syscall"
	"unsafe"
)

// stampedListen listens on addr with receive timestamps already on (SO_TIMESTAMPNS on the
// listening socket, which accepted sockets inherit): the kernel stamps only what arrives
// after some socket asked for stamps, so a request sent right after its connect, queued
// before Accept returns, would otherwise go unstamped.
func stampedListen(addr string) (net.Listener, error) {
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) {
			_ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
		})
	}}
	return lc.Listen(context.Background(), "tcp", addr)
}

// stampConns asks the kernel to timestamp what each accepted TCP connection receives
// (SO_TIMESTAMPNS) and reads it with recvmsg, so rxOf can say when a request reached the
// server before the server woke up for it. A connection where the option cannot be set is
// served as it is.
func stampConns(ln net.Listener) net.Listener { return stampListener{ln} }

type stampListener struct{ net.Listener }

func (l stampListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c, nil
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return c, nil
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
	}); err != nil || serr != nil {
		return c, nil
	}
	return &stampedConn{TCPConn: tc, raw: raw}, nil
}

// stampedConn reads with recvmsg and keeps the receive timestamp the kernel attaches. Its
// other methods are the TCP connection's (deadlines, CloseWrite, ReadFrom).
type stampedConn struct {
	*net.TCPConn
	raw syscall.RawConn
	rxStamp
	oob [64]byte
}

// Read is one recvmsg, waiting (with the connection's deadlines) until there is something to
// read. http.Server reads a connection from one goroutine at a time, so oob is not shared.
func (c *stampedConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n, oobn int
	var rerr error
	err := c.raw.Read(func(fd uintptr) bool {
		n, oobn, _, _, rerr = syscall.Recvmsg(int(fd), p, c.oob[:], 0)
		return rerr != syscall.EAGAIN && rerr != syscall.EWOULDBLOCK
	})
	if err == nil {
		err = rerr
	}
	if err != nil {
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
	}
	if n == 0 {
		return 0, io.EOF
	}
	if ns := rxTimestamp(c.oob[:oobn]); ns > 0 {
		c.ns.Store(ns)
	}
	return n, nil
}

// rxTimestamp finds the SCM_TIMESTAMPNS message in a recvmsg's control data, 0 if none.
func rxTimestamp(b []byte) int64 {
	for len(b) >= syscall.SizeofCmsghdr {
		h := (*syscall.Cmsghdr)(unsafe.Pointer(&b[0]))
		l := int(h.Len)
		if l < syscall.SizeofCmsghdr || l > len(b) {
			return 0
		}
		if h.Level == syscall.SOL_SOCKET && h.Type == syscall.SCM_TIMESTAMPNS &&
			l >= syscall.CmsgLen(int(unsafe.Sizeof(syscall.Timespec{}))) {
			ts := (*syscall.Timespec)(unsafe.Pointer(&b[syscall.CmsgLen(0)]))
			return ts.Nano()
		}
		b = b[min(syscall.CmsgSpace(l-syscall.CmsgLen(0)), len(b)):]
	}
	return 0
}
