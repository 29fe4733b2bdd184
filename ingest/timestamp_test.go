package ingest

import (
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	cases := []struct {
		in   string
		unit int64
		want int64
		err  bool
	}{
		{"2024-02-07 09:30:12.4817253", 1, time.Date(2024, 2, 7, 9, 30, 12, 481725300, time.UTC).UnixNano(), false},
		{"2024-05-01T10:00:00Z", 1, time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC).UnixNano(), false},
		{"2024-05-01T12:00:01.5+02:00", 1, time.Date(2024, 5, 1, 10, 0, 1, 5e8, time.UTC).UnixNano(), false},
		{"2024-05-01T12:00:01-0130", 1, time.Date(2024, 5, 1, 13, 30, 1, 0, time.UTC).UnixNano(), false},
		{"2024-02-29 00:00:00", 1, time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC).UnixNano(), false},
		{"1969-12-31T23:59:59.999999999Z", 1, -1, false},
		{"2023-02-29 00:00:00", 1, 0, true},
		{"2024-02-07 25:30:12", 1, 0, true},
		{"2024-02-07 09:30", 1, 0, true},
		{"2024-02-07 09:30:12.", 1, 0, true},
		{"2024-02-07 09:30:12 UTC", 1, 0, true},
		{"1714557600.5", 1e9, 1714557600500000000, false},
		{"1714557600123", 1e6, 1714557600123000000, false},
		{"1.2345678", 1e6, 1234567, false},
		{"40", 1e6, 40e6, false},
		{"-5", 1e9, -5e9, false},
		{"1e3", 1e9, 1000e9, false},
		{"1.5e-3", 1e9, 1.5e6, false},
		{"99999999999999999999", 1e9, 0, true},
		{"1e300", 1, 0, true},
		{"abc", 1e9, 0, true},
		{"", 1e9, 0, true},
		{"1.2.3", 1e9, 0, true},
	}
	for _, c := range cases {
		got, err := parseTime([]byte(c.in), c.unit)
		if (err != nil) != c.err || (!c.err && got != c.want) {
			t.Errorf("parseTime(%q, %d) = %d, %v; want %d, err %v", c.in, c.unit, got, err, c.want, c.err)
		}
	}
}

func TestParseInt(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "12": 12, "12.0": 12, "12.000": 12, "-3": -3, "+7": 7} {
		if got, err := parseInt([]byte(in)); err != nil || got != want {
			t.Errorf("parseInt(%q) = %d, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "1.5", "x", "1e3", "12a", "99999999999999999999", "-"} {
		if _, err := parseInt([]byte(in)); err == nil {
			t.Errorf("parseInt(%q) accepted", in)
		}
	}
}
