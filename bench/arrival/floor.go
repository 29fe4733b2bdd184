package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// floorConns is how many connections the floor sender opens before its first send; floorSpin is
// how long before each due time it stops sleeping and spins.
const (
	floorConns = 256
	floorSpin  = 50 * time.Microsecond
)

// floorSend is the machine's floor for this measurement: the least a sender can do. Every
// request is serialized before the run, the connections are open before it, and one goroutine
// locked to its thread spins on the clock to each due time and writes the bytes to an idle
// connection; readers discard the answers. No pacer can be earlier than this on this machine,
// so the gap between a sender's server-clock lateness and the floor's is the sender's own.
func floorSend(c config, sched []time.Duration, delay time.Duration, output int, name string) (*measure, error) {
	arrivals := filepath.Join(c.work, name+".arrivals")
	s, err := startSim(c, arrivals, delay)
	if err != nil {
		return nil, err
	}
	host := strings.TrimPrefix(s.url, "http://")
	body := fmt.Sprintf(`{"model":"replay-sim","prompt":%q,"max_tokens":%d,"stream":true,"stream_options":{"include_usage":true}}`,
		strings.Repeat("lorem ipsum ", 21), output)
	reqs := make([][]byte, len(sched))
	for i := range reqs {
		reqs[i] = []byte("POST /v1/completions HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\nX-Request-Id: " +
			strconv.Itoa(i) + "\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	}
	idle := make(chan *floorConn, floorConns)
	for range floorConns {
		nc, err := net.Dial("tcp", host)
		if err != nil {
			s.stop()
			return nil, fmt.Errorf("floor: %w", err)
		}
		fc := &floorConn{c: nc, r: bufio.NewReader(nc), done: make(chan struct{}, 1)}
		go fc.read(idle)
		idle <- fc
	}
	answered := make(chan bool, len(sched))
	start := time.Now().Add(500 * time.Millisecond)
	runtime.LockOSThread()
	syscall.RawSyscall(syscall.SYS_PRCTL, 29, 1, 0) // PR_SET_TIMERSLACK, 1 ns
	defer syscall.RawSyscall(syscall.SYS_PRCTL, 29, 50_000, 0)
	for i, at := range sched {
		due := start.Add(at)
		// nanosleep (1 ns timer slack on this locked thread) to within floorSpin, then spin:
		// the least CPU for the most precise wake this machine gives.
		for d := time.Until(due) - floorSpin; d > 0; d = time.Until(due) - floorSpin {
			ts := syscall.NsecToTimespec(int64(d))
			_ = syscall.Nanosleep(&ts, nil)
		}
		for time.Now().Before(due) {
		}
		fc := <-idle
		fc.answered = answered
		if _, err := fc.c.Write(reqs[i]); err != nil {
			answered <- false
		}
		fc.done <- struct{}{}
	}
	runtime.UnlockOSThread()
	ok := 0
	for range sched {
		if <-answered {
			ok++
		}
	}
	return s.judged(arrivals, sched, start, ok)
}

// floorConn is one of the floor sender's connections; its reader reads each answer to its end,
// says whether it was a 200, and puts the connection back.
type floorConn struct {
	c        net.Conn
	r        *bufio.Reader
	done     chan struct{} // a request was written
	answered chan bool
}

func (fc *floorConn) read(idle chan<- *floorConn) {
	for range fc.done {
		resp, err := http.ReadResponse(fc.r, nil)
		if err != nil {
			fc.answered <- false
			return
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		fc.answered <- err == nil && resp.StatusCode == http.StatusOK
		idle <- fc
	}
}
