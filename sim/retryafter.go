package sim

import (
	"net/http"
	"strconv"
	"time"
)

// retryAfterValue is d as a Retry-After value: whole seconds, rounded up so a client that obeys
// it never comes back early, and at least 1 because "0" invites an immediate retry storm.
func retryAfterValue(d time.Duration) string {
	secs := int64(d / time.Second)
	if d%time.Second != 0 {
		secs++ // rounded up without d+time.Second-1, which overflows for huge d
	}
	return strconv.FormatInt(max(secs, 1), 10)
}

// writeRetryable writes a 429 or 503 error, with Retry-After when Faults.RetryAfter is set,
// so a client's backoff can be tested against a server that says when to come back.
func (s *Server) writeRetryable(w http.ResponseWriter, e errorShape, status int, typ, msg string) {
	if d := s.cfg.Faults.RetryAfter; d > 0 {
		w.Header().Set("Retry-After", retryAfterValue(d))
	}
	e.write(w, status, typ, msg)
}
