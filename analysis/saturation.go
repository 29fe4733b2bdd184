package analysis

import (
	"fmt"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// Saturation, judged from the client alone (no server metrics needed, so it holds for any
// endpoint): an endpoint is saturated when its TTFT grows with the requests in flight and its
// completions stay below the arrivals, so that a queue builds for as long as the schedule
// goes. Either alone is not enough: TTFT grows with load on a healthy engine (longer
// batches), and completions trail arrivals on a healthy one while its first answers are
// still being written.
const (
	// saturatedTTFTRatio and saturatedTTFTGrowthMS are how much higher the median TTFT of the
	// windows with the most in flight must be than that of the windows with the fewest.
	saturatedTTFTRatio    = 3.0
	saturatedTTFTGrowthMS = 100.0
	// saturatedRankCorr is the least rank correlation of in-flight count and TTFT.
	saturatedRankCorr = 0.5
	// saturatedDoneShare is the share of the arrivals below which the completions (answers
	// and failures) while the schedule is busy say the endpoint fell behind: a healthy one
	// trails its arrivals only by the answers still being written (about e2e over the busy
	// span), a saturated one by its growing queue.
	saturatedDoneShare = 0.7
	// minSaturationWindows and minSaturationSends: fewer say nothing.
	minSaturationWindows = 6
	minSaturationSends   = 20
)

// saturation says why the endpoint was saturated, "" when it was not (or the run is too
// short to tell).
func (m *Metrics) saturation() string {
	_, ws := m.Windows()
	first, last := busySpan(ws)
	if last-first+1 < minSaturationWindows {
		return ""
	}
	// TTFT against load over the whole run: the quiet end of a run (later turns trickling
	// out) is what an engine's unloaded TTFT looks like.
	grows := ttftGrowsWithLoad(ws)
	if grows == "" {
		return ""
	}
	var sent, done float64
	for _, w := range ws[first : last+1] {
		sent += w.SendRate
		done += w.CompletionRate + w.ErrorRate
	}
	if sent < minSaturationSends || done >= saturatedDoneShare*sent {
		return ""
	}
	n := float64(last - first + 1)
	return fmt.Sprintf("%s; %.1f completions/s against %.1f arrivals/s while the schedule was busy", grows, done/n, sent/n)
}

// busySpan is the first window in which requests left and the last in which they still left
// at a quarter of the busiest window's rate or more: the part of the schedule that loads the
// endpoint (later turns of sessions, gated on their answers, trickle out after it).
func busySpan(ws []Window) (first, last int) {
	first, last = -1, -2
	peak := 0.0
	for _, w := range ws {
		peak = max(peak, w.SendRate)
	}
	for i, w := range ws {
		if w.SendRate > 0 && first < 0 {
			first = i
		}
		if peak > 0 && w.SendRate >= busyShare*peak {
			last = i
		}
	}
	return first, last
}

// busyShare is the share of the busiest window's send rate below which the schedule is no
// longer busy.
const busyShare = 0.25

// ttftGrowsWithLoad compares the median TTFT of the windows with the most requests in flight
// against that of the windows with the fewest, and says how it grew ("" when it did not grow
// enough, or not with the load).
func ttftGrowsWithLoad(ws []Window) string {
	var pts []Window
	for _, w := range ws {
		if w.TTFTCount > 0 {
			pts = append(pts, w)
		}
	}
	if len(pts) < minSaturationWindows {
		return ""
	}
	load, ttft := make([]float64, len(pts)), make([]float64, len(pts))
	for i, w := range pts {
		load[i], ttft[i] = w.InFlight, w.TTFTP50MS
	}
	rho := stat.Correlation(ranks(load), ranks(ttft), nil)
	sort.Slice(pts, func(i, j int) bool { return pts[i].InFlight < pts[j].InFlight })
	low, high := pts[:len(pts)/2], pts[len(pts)-len(pts)/2:]
	lowMS, highMS := medianTTFT(low), medianTTFT(high)
	if !(rho >= saturatedRankCorr) || highMS < saturatedTTFTRatio*lowMS || highMS-lowMS < saturatedTTFTGrowthMS {
		return ""
	}
	return fmt.Sprintf("TTFT p50 %.0f ms at about %.0f requests in flight against %.0f ms at about %.0f",
		highMS, meanInFlight(high), lowMS, meanInFlight(low))
}

// ranks are x's ranks (1-based, ties given their mean rank), for a rank correlation.
func ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	r := make([]float64, len(x))
	for lo := 0; lo < len(idx); {
		hi := lo
		for hi < len(idx) && x[idx[hi]] == x[idx[lo]] {
			hi++
		}
		mean := float64(lo+hi+1) / 2
		for k := lo; k < hi; k++ {
			r[idx[k]] = mean
		}
		lo = hi
	}
	return r
}

// medianTTFT is the median of windows' TTFT medians.
func medianTTFT(ws []Window) float64 {
	v := make([]float64, len(ws))
	for i, w := range ws {
		v[i] = w.TTFTP50MS
	}
	sort.Float64s(v)
	return v[len(v)/2]
}

// meanInFlight is the windows' mean in-flight count.
func meanInFlight(ws []Window) float64 {
	var s float64
	for _, w := range ws {
		s += w.InFlight
	}
	return s / float64(len(ws))
}
