package main

import (
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "auto": 0, "AUTO": 0, "4096": 4096, "512MiB": 512 << 20, "2GiB": 2 << 30, "1.5gib": 3 << 29,
		"64 KiB": 64 << 10, "8GB": 8 << 30, "all": -1, "ALL": -1, "1TiB": 1 << 40, "100B": 100} {
		got, err := parseSize(in)
		if err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "GiB", "1.2.3MiB", "1e30GiB", "NaN", "inf", "12 parsecs"} {
		if _, err := parseSize(in); err == nil || !strings.Contains(err.Error(), "want a size") {
			t.Errorf("parseSize(%q): %v, want an error", in, err)
		}
	}
	var v int64 = 3 << 30
	if s := (sizeFlag{&v}).String(); s != "3GiB" {
		t.Errorf("String() = %q", s)
	}
}

// FuzzParseSize: no input panics, and an accepted size is -1 (all) or not negative.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"512MiB", "all", "1.5GiB", "-3", "1e400", "9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := parseSize(s); err == nil && v < -1 {
			t.Fatalf("parseSize(%q) = %d", s, v)
		}
	})
}
