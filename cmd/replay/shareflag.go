package main

import (
	"fmt"
	"strconv"
	"strings"
)

// shareFlag is a flag holding a share of a whole, given as a percentage ("99%") or a fraction
// ("0.99"); it stores the fraction. Nil p until set leaves the runner's default in force, so
// that its default lives in one place.
type shareFlag struct {
	p   **float64
	def float64
}

func (f shareFlag) String() string {
	v := f.def
	if f.p != nil && *f.p != nil {
		v = **f.p
	}
	return strconv.FormatFloat(100*v, 'g', -1, 64) + "%"
}

func (f shareFlag) Set(s string) error {
	v, err := parseShare(s)
	if err != nil {
		return err
	}
	*f.p = &v
	return nil
}

func (f shareFlag) Type() string { return "share" }

// parseShare reads "99%", "99.5%" or "0.99" as a fraction in [0, 1].
func parseShare(s string) (float64, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(t, "%"), 64)
	if err != nil {
		return 0, fmt.Errorf("%q: want a percentage (99%%) or a fraction (0.99)", s)
	}
	if pct {
		v /= 100
	}
	if !(v >= 0 && v <= 1) {
		return 0, fmt.Errorf("%q: want a share between 0%% and 100%%", s)
	}
	return v, nil
}
