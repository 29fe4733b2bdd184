package analysis

import (
	"fmt"
	"strings"
	"time"
)

// SLO is a set of per-request latency limits; a zero field is not part of the SLO.
// TTFT, TTFAT (time to the first answer token, after any thinking) and E2E are judged from
// the request's scheduled time (what a user of the original traffic would have waited, queue
// and send lateness included; a request that thought and never answered misses TTFAT), ITL against the request's largest
// inter-token gap (every token within the limit), TPOT against the request's own
// (last token - first token) / (output tokens - 1).
type SLO struct {
	TTFT  time.Duration
	TTFAT time.Duration
	ITL   time.Duration
	TPOT  time.Duration
	E2E   time.Duration
}

// sloKeys is the fixed order of SLO names in flags, JSON and tables.
var sloKeys = []string{"ttft", "ttfat", "itl", "tpot", "e2e"}

func (s *SLO) field(key string) *time.Duration {
	switch key {
	case "ttft":
		return &s.TTFT
	case "ttfat":
		return &s.TTFAT
	case "itl":
		return &s.ITL
	case "tpot":
		return &s.TPOT
	case "e2e":
		return &s.E2E
	}
	return nil
}

// ParseSLO reads "ttft=500ms,ttfat=2s,itl=60ms,tpot=50ms,e2e=10s" (any subset, any order; Go durations).
// An empty string is no SLO.
func ParseSLO(text string) (SLO, error) {
	var s SLO
	text = strings.TrimSpace(text)
	if text == "" {
		return s, nil
	}
	seen := map[string]bool{}
	for i, part := range strings.Split(text, ",") {
		part = strings.TrimSpace(part)
		key, val, ok := strings.Cut(part, "=")
		if !ok {
			return SLO{}, fmt.Errorf("slo item %d %q: want name=duration, e.g. ttft=500ms", i+1, part)
		}
		key = strings.ToLower(strings.TrimSpace(key))
		f := s.field(key)
		if f == nil {
			return SLO{}, fmt.Errorf("slo item %d %q: unknown name %q (want one of %s)", i+1, part, key, strings.Join(sloKeys, ", "))
		}
		if seen[key] {
			return SLO{}, fmt.Errorf("slo item %d %q: %s given twice", i+1, part, key)
		}
		seen[key] = true
		d, err := time.ParseDuration(strings.TrimSpace(val))
		if err != nil {
			return SLO{}, fmt.Errorf("slo item %d %q: %w", i+1, part, err)
		}
		if d <= 0 {
			return SLO{}, fmt.Errorf("slo item %d %q: limit must be positive", i+1, part)
		}
		*f = d
	}
	return s, nil
}

// IsZero reports whether no limit is set.
func (s SLO) IsZero() bool { return s == SLO{} }

// String formats the SLO the way ParseSLO reads it, in the fixed key order.
func (s SLO) String() string {
	var parts []string
	for _, k := range sloKeys {
		if d := *s.field(k); d > 0 {
			parts = append(parts, k+"="+d.String())
		}
	}
	return strings.Join(parts, ",")
}
