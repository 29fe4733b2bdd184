package runner

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// The send log (requests.sends) is what a killed run sent. The journal keeps finished rows
// only, so without it a resume could not tell a request that was in flight at the kill (sent:
// lost, never sent again: the server saw it) from one never sent (sent on resume). Layout,
// little-endian: magic "RPLSEND\x01", the plan's measured request count (uint64), then one
// uint32 plan index per send, in send order, each its own write(2) on an O_APPEND file: a
// SIGKILL or OOM kill loses nothing the kernel took, and a torn last record (a power loss) is
// dropped on read. The cost, one small write per request, is far below a request's own
// (a connect, a body write and a stream read).
const (
	sendLogMagic = "RPLSEND\x01"
	sendLogHead  = len(sendLogMagic) + 8
)

// sendLog appends plan indexes as requests leave; safe for concurrent use.
type sendLog struct {
	mu sync.Mutex
	f  *os.File
	// err is the first failed write: later marks are skipped, and the run's end reports it
	// (a resume then cannot trust the log).
	err error
}

// createSendLog starts a send log at path for a plan of n measured requests, replacing any
// earlier one.
func createSendLog(path string, n int) (*sendLog, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("send log: %w", err)
	}
	head := binary.LittleEndian.AppendUint64([]byte(sendLogMagic), uint64(n))
	if _, err := f.Write(head); err != nil {
		f.Close()
		return nil, fmt.Errorf("send log %s: %w", path, err)
	}
	return &sendLog{f: f}, nil
}

// appendSendLog reopens a killed run's send log, whose records readSendLog has checked, for a
// resumed run to go on marking; a torn last record is cut first.
func appendSendLog(path string, size int64) (*sendLog, error) {
	if err := os.Truncate(path, size); err != nil {
		return nil, fmt.Errorf("send log: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("send log: %w", err)
	}
	return &sendLog{f: f}, nil
}

// mark records that plan index i left.
func (l *sendLog) mark(i int) {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(i))
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return
	}
	if _, err := l.f.Write(b[:]); err != nil {
		l.err = fmt.Errorf("send log %s: %w", l.f.Name(), err)
	}
}

// close closes the log; remove deletes it too (the run sent and finished its whole schedule:
// nothing is left to resume).
func (l *sendLog) close(remove bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	err := errors.Join(l.err, l.f.Close())
	if remove && err == nil {
		err = os.Remove(l.f.Name())
	}
	return err
}

// sentSet is what a send log says: the plan's request count, which indexes were sent, and
// the length of its whole records.
type sentSet struct {
	n    int
	sent []bool
	size int64
}

// readSendLog reads the send log at path. A torn last record is left out (it is cut when the
// log is reopened); an index outside the plan is an error naming its offset.
func readSendLog(path string) (sentSet, error) {
	var s sentSet
	b, err := os.ReadFile(path)
	if err != nil {
		return s, fmt.Errorf("send log: %w", err)
	}
	if len(b) < sendLogHead || string(b[:len(sendLogMagic)]) != sendLogMagic {
		return s, fmt.Errorf("send log %s: %w: not a send log (no header)", path, io.ErrUnexpectedEOF)
	}
	n := binary.LittleEndian.Uint64(b[len(sendLogMagic):])
	if n > 1<<32 {
		return s, fmt.Errorf("send log %s: header: %d requests is not a plan's count", path, n)
	}
	s.n, s.sent = int(n), make([]bool, n)
	off := sendLogHead
	for ; off+4 <= len(b); off += 4 {
		i := binary.LittleEndian.Uint32(b[off:])
		if uint64(i) >= n {
			return s, fmt.Errorf("send log %s: offset %d: index %d outside the plan's %d requests", path, off, i, n)
		}
		s.sent[i] = true
	}
	s.size = int64(off)
	return s, nil
}
