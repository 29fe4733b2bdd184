package shard

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseShard parses --shard's value "K/N": share K (from 0) of N. "0/1" is an unsharded run.
func ParseShard(s string) (k, n int, err error) {
	ks, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	if ok {
		k, err = strconv.Atoi(ks)
		if err == nil {
			n, err = strconv.Atoi(ns)
		}
	}
	if !ok || err != nil {
		return 0, 0, fmt.Errorf("--shard %q: want K/N, shard K (from 0) of N, e.g. 0/4", s)
	}
	if n < 1 || k < 0 || k >= n {
		return 0, 0, fmt.Errorf("--shard %q: want 0 <= K < N (K counts from 0: the shards of 4 are 0/4 to 3/4)", s)
	}
	return k, n, nil
}

// ParseStartAt parses --start-at's value: RFC 3339 with an optional fraction
// (2026-03-01T12:00:00.5Z) or Unix seconds with an optional fraction of up to 9 digits
// (1772366400.5, what `date +%s.%N` prints). Unix seconds are parsed as decimal digits, not
// through a float, so a start given to the nanosecond is kept to the nanosecond.
func ParseStartAt(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, ok := parseUnix(s); ok {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("--start-at %q: want RFC 3339 (2026-03-01T12:00:00.5Z) or Unix seconds (1772366400.5)", s)
}

// parseUnix parses decimal Unix seconds: digits, optionally a point and 1 to 9 digits.
func parseUnix(s string) (time.Time, bool) {
	secs, frac, hasFrac := strings.Cut(s, ".")
	if !allDigits(secs) || (hasFrac && (!allDigits(frac) || len(frac) > 9)) {
		return time.Time{}, false
	}
	sec, err := strconv.ParseInt(secs, 10, 64)
	if err != nil || sec > 253402300799 { // 9999-12-31T23:59:59Z: beyond it is a typo
		return time.Time{}, false
	}
	var nsec int64
	if hasFrac {
		nsec, _ = strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64) // digits only
	}
	return time.Unix(sec, nsec).UTC(), true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
