package stats

import "math"

// IsFinite reports whether v is neither NaN nor infinite: a value that can be compared,
// summed and printed as a figure.
func IsFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
