package stats

import (
	"math"
	"strconv"
)

// Fig prints a figure with at most three decimals (microseconds for ms values).
func Fig(v float64) string {
	if math.Abs(v) >= 1e15 {
		return strconv.FormatFloat(v, 'g', 6, 64)
	}
	r := math.Round(v*1000) / 1000
	if r == 0 {
		r = 0 // no "-0"
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// SignedFig is Fig with a sign: "+5.1", "-0.25", "+0".
func SignedFig(v float64) string {
	s := Fig(v)
	if s[0] != '-' {
		s = "+" + s
	}
	return s
}
