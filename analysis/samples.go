package analysis

import (
	"fmt"
	"sort"
)

// samples.go is what the comparison of two runs (package compare) reads of a run beyond its
// summary: the latency samples it resamples, and the summary's distributions and SLO figures
// in the terminal table's order.

// LatencySamplesMS are the run's successful requests' TTFT and e2e in ms, each ascending. It
// closes m.
func (m *Metrics) LatencySamplesMS() (ttft, e2e []float64) {
	m.Close()
	us := make([]uint32, len(m.ttftAt))
	for i, p := range m.ttftAt {
		us[i] = p.us
	}
	return sortedMS(us), sortedMS(m.e2eUS)
}

func sortedMS(us []uint32) []float64 {
	x := make([]float64, len(us))
	for i, v := range us {
		x[i] = float64(v) / 1000
	}
	sort.Float64s(x)
	return x
}

// DistRow is one of a summary's latency distributions with its name ("ttft", "e2e (from
// scheduled)", ...).
type DistRow struct {
	Name string
	D    Dist
}

// DistRows are the summary's latency distributions in the terminal table's order, TTFAT
// among them when the run's model thought (Thought).
func (s *Summary) DistRows() []DistRow { return s.DistRowsWith(s.Thought()) }

// DistRowsWith is DistRows with or without TTFAT: two runs compared show the same rows.
func (s *Summary) DistRowsWith(ttfat bool) []DistRow {
	rows := []DistRow{{"ttft", s.TTFT}}
	if ttfat {
		rows = append(rows, DistRow{"ttfat", s.TTFAT})
	}
	return append(rows, []DistRow{{"ttft (from scheduled)", s.TTFTSched}, {"itl", s.ITL}, {"tpot", s.TPOT},
		{"e2e", s.E2E}, {"e2e (from scheduled)", s.E2ESched}, {"lateness", s.Lateness}, {"queue wait", s.QueueWait},
	}...)
}

// Thought reports whether any request of the run thought, or its log said how much it did:
// the run's tables then show TTFAT beside TTFT.
func (s *Summary) Thought() bool { return s.Reasoning != nil }

// SLONames are the figures an SLO may limit, in the order the tables show them.
func SLONames() []string { return append([]string(nil), sloKeys...) }

// FormatMS is a latency in ms as the tables print it (three significant digits or so).
func FormatMS(v float64) string { return fmtMS(v) }

// fmtMS prints a millisecond figure with about four significant digits.
func fmtMS(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v < 10:
		return fmt.Sprintf("%.3f", v)
	case v < 100:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.1f", v)
	}
}
