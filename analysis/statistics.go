package analysis

import "github.com/llm-replay/replay/stats"

// The statistics of comparing runs are package stats'; compare.json and the cache study carry
// its types under these names.
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

// fmtFig is a figure as the summaries print it (stats.Fig).
func fmtFig(v float64) string { return stats.Fig(v) }

// signedFig is fmtFig with a sign (stats.SignedFig).
func signedFig(v float64) string { return stats.SignedFig(v) }

// isFinite is stats.IsFinite.
func isFinite(v float64) bool { return stats.IsFinite(v) }
