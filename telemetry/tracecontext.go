package telemetry

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
)

// NewRunID is a fresh run id: 16 random hex digits. A run's trace ids are derived from it, so
// a resumed or repeated run (a new id) never reuses the first one's.
func NewRunID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand's Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// Traces derives the trace context of each request of one run's endpoint. The zero value is
// not usable; a nil *Traces means trace context is off.
type Traces struct {
	seed [sha256.Size]byte
}

// NewTraces derives the trace contexts of the run runID's requests to the endpoint labelled
// leg (a paired run's endpoints get distinct traces for the same request).
func NewTraces(runID, leg string) *Traces {
	h := sha256.New()
	h.Write([]byte("replay trace context\x00"))
	h.Write([]byte(runID))
	h.Write([]byte{0})
	h.Write([]byte(leg))
	t := &Traces{}
	h.Sum(t.seed[:0])
	return t
}

// TraceID is the trace of the request requestID: the first 16 bytes of SHA-256 over the run's
// seed and the id, never all zero (the W3C spec's invalid value). It does not allocate for ids
// of up to 64 bytes.
func (t *Traces) TraceID(requestID string) [16]byte {
	var buf [sha256.Size + 64]byte
	b := append(buf[:0], t.seed[:]...)
	b = append(b, requestID...)
	sum := sha256.Sum256(b)
	var id [16]byte
	copy(id[:], sum[:16])
	if id == ([16]byte{}) {
		id[15] = 1
	}
	return id
}

// SpanID is the span of attempt (from 0) of the request whose trace is traceID: the parent
// id the request's traceparent names, and replay's exported span's own id, so the server's span
// is its child. Never all zero.
func SpanID(traceID [16]byte, attempt int) [8]byte {
	var buf [16 + 8]byte
	copy(buf[:], traceID[:])
	binary.BigEndian.PutUint64(buf[16:], uint64(attempt))
	sum := sha256.Sum256(buf[:])
	var id [8]byte
	copy(id[:], sum[:8])
	if id == ([8]byte{}) {
		id[7] = 1
	}
	return id
}
