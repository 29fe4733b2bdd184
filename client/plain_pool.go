package client

import (
	"bufio"
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// plainConn is one pooled HTTP/1.1 connection with its buffers.
type plainConn struct {
	conn net.Conn
	addr string
	br   *bufio.Reader
	bw   *bufio.Writer
	used int       // requests sent on it
	idle time.Time // when it went back to the pool
}

// connPool keeps idle connections per address (the most recent first: a warm connection is
// likelier alive) and, with a cap, counts every open one: a request that finds the cap
// reached waits for a connection to come back or close.
type connPool struct {
	dial        func(ctx context.Context, network, addr string) (net.Conn, error)
	max         int           // 0: no cap
	idleTimeout time.Duration // an idle connection older than this is closed, not reused

	mu      sync.Mutex
	idle    map[string][]*plainConn
	open    int
	waiters []chan *plainConn // with a cap: requests waiting; a nil sent means "dial"

	// resent counts requests sent again after the server closed their reused connection
	// before answering (resend.go).
	resent atomic.Int64
}

func newConnPool(dial func(ctx context.Context, network, addr string) (net.Conn, error), max int, idleTimeout time.Duration) *connPool {
	return &connPool{dial: dial, max: max, idleTimeout: idleTimeout, idle: map[string][]*plainConn{}}
}

// get is an idle connection to addr that is still open, or a new one.
func (p *connPool) get(ctx context.Context, addr string) (*plainConn, error) {
	for {
		p.mu.Lock()
		pc := p.popIdle(addr)
		if pc == nil && p.max > 0 && p.open >= p.max {
			w := make(chan *plainConn, 1)
			p.waiters = append(p.waiters, w)
			p.mu.Unlock()
			select {
			case pc = <-w:
			case <-ctx.Done():
				p.leave(w)
				return nil, ctx.Err()
			}
			if pc == nil { // a connection closed: this request may dial
				return p.newConn(ctx, addr)
			}
			if pc.addr != addr { // another address's: close it and dial ours in its place
				pc.conn.Close()
				return p.newConn(ctx, addr)
			}
		} else if pc == nil {
			p.open++
			p.mu.Unlock()
			return p.newConn(ctx, addr)
		} else {
			p.mu.Unlock()
		}
		if p.alive(pc) {
			return pc, nil
		}
		p.discard(pc)
	}
}

// idleConn pops addr's most recent idle connection that is still open, nil when there is none.
func (p *connPool) idleConn(addr string) *plainConn {
	for {
		p.mu.Lock()
		pc := p.popIdle(addr)
		p.mu.Unlock()
		if pc == nil || p.alive(pc) {
			return pc
		}
		p.discard(pc)
	}
}

// popIdle takes addr's most recent idle connection; the caller holds mu.
func (p *connPool) popIdle(addr string) *plainConn {
	list := p.idle[addr]
	if len(list) == 0 {
		return nil
	}
	pc := list[len(list)-1]
	list[len(list)-1] = nil
	p.idle[addr] = list[:len(list)-1]
	return pc
}

// alive reports whether an idle connection can carry a request: not idle past the timeout and
// not closed by the server, checked without waiting (peerClosed). Every reuse is checked, however
// short the wait: a server may close a connection right after its response without a
// "Connection: close" (llama-server after every streamed answer, resend.go), and a request
// written on it would fail; the check is one non-blocking system call.
func (p *connPool) alive(pc *plainConn) bool {
	if p.idleTimeout > 0 && time.Since(pc.idle) > p.idleTimeout {
		return false
	}
	return !peerClosed(pc.conn)
}

// redial replaces pc, which the server closed before answering a request on it, with a new
// connection in the same slot, for that request's one resend (resend.go), and counts it.
func (p *connPool) redial(ctx context.Context, pc *plainConn) (*plainConn, error) {
	pc.conn.Close()
	p.resent.Add(1)
	return p.newConn(ctx, pc.addr)
}

// newConn dials addr for a request that holds an open slot.
func (p *connPool) newConn(ctx context.Context, addr string) (*plainConn, error) {
	c, err := p.dial(ctx, "tcp", addr)
	if err != nil {
		p.closed()
		return nil, err
	}
	return &plainConn{conn: c, addr: addr, br: bufio.NewReaderSize(c, 8<<10), bw: bufio.NewWriterSize(c, 16<<10)}, nil
}

// put returns a connection whose exchange ended cleanly: to a waiting request, or idle.
func (p *connPool) put(pc *plainConn) {
	pc.idle = time.Now()
	p.mu.Lock()
	if p.handOver(pc) {
		return
	}
	p.idle[pc.addr] = append(p.idle[pc.addr], pc)
	p.mu.Unlock()
}

// handOver gives pc (nil: a free slot to dial on) to the longest-waiting request and unlocks
// mu, which the caller holds; false, with mu still held, when none waits.
func (p *connPool) handOver(pc *plainConn) bool {
	if len(p.waiters) == 0 {
		return false
	}
	w := p.waiters[0]
	p.waiters = p.waiters[1:]
	p.mu.Unlock()
	w <- pc
	return true
}

// discard closes a connection that cannot be reused.
func (p *connPool) discard(pc *plainConn) {
	pc.conn.Close()
	p.closed()
}

// closed frees a connection's slot: a waiting request may dial in its place.
func (p *connPool) closed() {
	p.mu.Lock()
	if p.handOver(nil) {
		return
	}
	p.open--
	p.mu.Unlock()
}

// leave removes a waiter that gave up; what was handed to it meanwhile is passed on.
func (p *connPool) leave(w chan *plainConn) {
	p.mu.Lock()
	for i, x := range p.waiters {
		if x == w {
			p.waiters = append(p.waiters[:i], p.waiters[i+1:]...)
			p.mu.Unlock()
			return
		}
	}
	p.mu.Unlock()
	// Already handed a connection or a slot: give it back.
	if pc := <-w; pc != nil {
		p.put(pc)
	} else {
		p.closed()
	}
}

// closeIdle closes every idle connection.
func (p *connPool) closeIdle() {
	p.mu.Lock()
	var all []*plainConn
	for addr, list := range p.idle {
		all = append(all, list...)
		delete(p.idle, addr)
	}
	p.open -= len(all)
	p.mu.Unlock()
	for _, pc := range all {
		pc.conn.Close()
	}
}
