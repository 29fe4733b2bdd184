package client

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryAfter parses a Retry-After header value (RFC 9110 §10.2.3): delay-seconds, or an
// HTTP-date taken relative to now. It returns nanoseconds, 0 when v is empty, unparseable or
// a date in the past, and saturates instead of overflowing.
func retryAfter(v string, now time.Time) int64 {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if allDigits(v) {
		s, err := strconv.ParseInt(v, 10, 64)
		if err != nil || s > math.MaxInt64/int64(time.Second) {
			return math.MaxInt64 // all digits, so only too large to parse
		}
		return s * int64(time.Second)
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0
	}
	return max(int64(t.Sub(now)), 0)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
