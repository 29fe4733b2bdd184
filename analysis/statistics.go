package analysis

import "github.com/llm-replay/replay/stats"

// The statistics of comparing runs are package stats'; compare.json carries its types under
// these names (the cache study uses stats' own).
type (
	Interval      = stats.Interval
	MannWhitney   = stats.MannWhitney
	Pair          = stats.Pair
	PairedOptions = stats.PairedOptions
	PairedTest    = stats.PairedTest
)

// The directions a paired test ends with (stats').
const (
	PairedSlower = stats.PairedSlower
	PairedFaster = stats.PairedFaster
	PairedSame   = stats.PairedSame
)

// isFinite is stats.IsFinite.
func isFinite(v float64) bool { return stats.IsFinite(v) }
