package sim

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
)

// A request's arrival has two instants on the server: when its bytes reached the server's
// kernel, and when the server's own goroutine got round to reading them. The second is what
// a handler sees; the difference is the server waking up, scheduled among its other work, which
// no client can make shorter. The arrival log records both, so that a measurement of the
// client's send timing can leave the server's wake-up out (stampConns, on Linux from the
// socket's receive timestamps; elsewhere the first instant is unknown, 0).

// rxConn is a connection that knows when the bytes of its latest read reached the kernel.
type rxConn interface {
	net.Conn
	// lastRx is the Unix time (ns) at which the data of the latest read arrived, 0 if unknown.
	lastRx() int64
}

// rxStamp holds a connection's latest receive time for its readers.
type rxStamp struct{ ns atomic.Int64 }

func (s *rxStamp) lastRx() int64 { return s.ns.Load() }

// connKey carries the request's connection in its context (http.Server.ConnContext).
type connKey struct{}

func withConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// rxOf is when the read that brought r's headers reached the server's kernel, 0 if unknown.
// For a request that arrives in one segment (headers and a small body in one write, as an
// HTTP client sends them) that is the request's arrival; for a larger one, its first part's.
// An HTTP/1 connection is read by one goroutine at a time and serves one request at a time,
// so the connection's latest read, looked at when the handler starts, is that one.
func rxOf(r *http.Request) int64 {
	if c, ok := r.Context().Value(connKey{}).(rxConn); ok {
		return c.lastRx()
	}
	return 0
}
