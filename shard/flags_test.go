package shard

import (
	"strings"
	"testing"
	"time"
)

func TestParseShard(t *testing.T) {
	for in, want := range map[string][2]int{"0/4": {0, 4}, "3/4": {3, 4}, " 0/1 ": {0, 1}, "11/16": {11, 16}} {
		k, n, err := ParseShard(in)
		if err != nil || k != want[0] || n != want[1] {
			t.Errorf("ParseShard(%q) = %d, %d, %v; want %d/%d", in, k, n, err, want[0], want[1])
		}
	}
	for _, in := range []string{"", "4", "4/4", "-1/4", "1/0", "a/4", "1/b", "1/4/2", "1.5/4"} {
		if _, _, err := ParseShard(in); err == nil || !strings.HasPrefix(err.Error(), "--shard ") {
			t.Errorf("ParseShard(%q): err %v, want one naming --shard", in, err)
		}
	}
}

func TestParseStartAt(t *testing.T) {
	cases := map[string]time.Time{
		"2026-03-01T12:00:00Z":           time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
		"2026-03-01T12:00:00.25Z":        time.Date(2026, 3, 1, 12, 0, 0, 250_000_000, time.UTC),
		"2026-03-01T13:00:00.5+01:00":    time.Date(2026, 3, 1, 12, 0, 0, 500_000_000, time.UTC),
		"1772366400":                     time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
		"1772366400.5":                   time.Date(2026, 3, 1, 12, 0, 0, 500_000_000, time.UTC),
		"1772366400.000000001":           time.Date(2026, 3, 1, 12, 0, 0, 1, time.UTC),
		"2026-03-01T12:00:00.123456789Z": time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC),
	}
	for in, want := range cases {
		got, err := ParseStartAt(in)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseStartAt(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "now", "1772366400.", ".5", "-1772366400", "1772366400.1234567890", "1e9",
		"2026-03-01 12:00:00", "2026-03-01", "99999999999999"} {
		if _, err := ParseStartAt(in); err == nil || !strings.HasPrefix(err.Error(), "--start-at ") {
			t.Errorf("ParseStartAt(%q): err %v, want one naming --start-at", in, err)
		}
	}
}
