package analysis

import (
	"math"
	"sort"

	"github.com/llm-replay/replay/stats"
)

// maxSeriesSeconds bounds the per-second series (a week): a corrupt offset must not make the
// aggregation allocate without limit; rows beyond it still count everywhere else.
const maxSeriesSeconds = 7 * 24 * 3600

// series holds per-second counters over the run, indexed by second since the run's start.
type series struct {
	scheduled   []int64   // requests due to leave (the trace's arrival rate after speed scaling)
	sends       []int64   // requests that left
	completions []int64   // successful completions
	errs        []int64   // failed requests, at the time they ended
	outTokens   []float64 // output tokens, spread over the chunks that carried them
	inflightNS  []int64   // summed in-flight time (ns); / 1e9 is the mean in-flight count
}

func sec(ns int64) (int, bool) {
	if ns < 0 {
		ns = 0
	}
	s := ns / 1e9
	if s >= maxSeriesSeconds {
		return 0, false
	}
	return int(s), true
}

func (s *series) grow(n int) {
	for len(s.sends) <= n {
		s.scheduled = append(s.scheduled, 0)
		s.sends = append(s.sends, 0)
		s.completions = append(s.completions, 0)
		s.errs = append(s.errs, 0)
		s.outTokens = append(s.outTokens, 0)
		s.inflightNS = append(s.inflightNS, 0)
	}
}

func (s *series) addSend(scheduledNS, sentNS, doneNS int64) {
	if i, ok := sec(scheduledNS); ok {
		s.grow(i)
		s.scheduled[i]++
	}
	i0, ok := sec(sentNS)
	if !ok {
		return
	}
	s.grow(i0)
	s.sends[i0]++
	i1, ok := sec(doneNS)
	if !ok {
		i1 = maxSeriesSeconds - 1
	}
	s.grow(i1)
	if sentNS < 0 {
		sentNS = 0
	}
	for i := i0; i <= i1; i++ {
		lo, hi := int64(i)*1e9, int64(i+1)*1e9
		lo, hi = max(lo, sentNS), min(hi, doneNS)
		if hi > lo {
			s.inflightNS[i] += hi - lo
		}
	}
}

func (s *series) addError(doneNS int64) {
	if i, ok := sec(doneNS); ok {
		s.grow(i)
		s.errs[i]++
	}
}

func (s *series) addCompletion(doneNS int64, chunks []int64, out int64) {
	if i, ok := sec(doneNS); ok {
		s.grow(i)
		s.completions[i]++
	}
	if len(chunks) == 0 {
		if i, ok := sec(doneNS); ok {
			s.outTokens[i] += float64(out)
		}
		return
	}
	w := float64(out) / float64(len(chunks))
	// The chunks of one second share its bucket: sec's division only when a chunk leaves
	// [lo, hi), the nanoseconds of bucket i (a request's chunks are in time order, mostly).
	lo, hi, i := int64(1), int64(0), 0
	for _, c := range chunks {
		if c < lo || c >= hi {
			j, ok := sec(c)
			if !ok {
				continue
			}
			i, lo, hi = j, int64(j)*1e9, int64(j+1)*1e9
			if j == 0 {
				lo = math.MinInt64 // sec counts a negative offset in second 0
			}
			s.grow(i)
		}
		s.outTokens[i] += w
	}
}

// Window is one time bucket of the run's time series; rates are per second over the window.
type Window struct {
	StartS         float64 // window start, seconds from run start
	ScheduledRate  float64 // requests due per second (the trace's arrival rate)
	SendRate       float64 // requests sent per second
	CompletionRate float64 // successful completions per second
	ErrorRate      float64 // failures per second
	OutputTokS     float64 // output tokens per second
	InFlight       float64 // mean requests in flight
	TTFTCount      int     // requests sent in the window that produced a first token
	TTFTP50MS      float64 // their TTFT median (ms), 0 when TTFTCount is 0
	TTFTP95MS      float64
}

// maxWindows keeps plots readable and the report small: long runs get wider windows.
const maxWindows = 300

// Windows returns the run's time series in windows of WindowS seconds (1 s for runs up to five
// minutes, wider for longer ones so that there are at most 300). Empty before any row.
func (m *Metrics) Windows() (windowS int, ws []Window) {
	s := &m.series
	n := len(s.sends)
	if n == 0 {
		return 1, nil
	}
	width := (n + maxWindows - 1) / maxWindows
	if width < 1 {
		width = 1
	}
	nw := (n + width - 1) / width
	ws = make([]Window, nw)
	fw := float64(width)
	for i := 0; i < n; i++ {
		w := &ws[i/width]
		w.ScheduledRate += float64(s.scheduled[i]) / fw
		w.SendRate += float64(s.sends[i]) / fw
		w.CompletionRate += float64(s.completions[i]) / fw
		w.ErrorRate += float64(s.errs[i]) / fw
		w.OutputTokS += s.outTokens[i] / fw
		w.InFlight += float64(s.inflightNS[i]) / 1e9 / fw
	}
	for i := range ws {
		ws[i].StartS = float64(i * width)
	}
	// TTFT percentiles per window, exact (nearest rank) from the kept per-request points.
	pts := append([]ttftPoint(nil), m.ttftAt...)
	sort.Slice(pts, func(i, j int) bool {
		if pts[i].sec/uint32(width) != pts[j].sec/uint32(width) {
			return pts[i].sec < pts[j].sec
		}
		return pts[i].us < pts[j].us
	})
	for lo := 0; lo < len(pts); {
		wi := int(pts[lo].sec) / width
		hi := lo
		for hi < len(pts) && int(pts[hi].sec)/width == wi {
			hi++
		}
		if wi < len(ws) {
			grp := pts[lo:hi]
			ws[wi].TTFTCount = len(grp)
			ws[wi].TTFTP50MS = float64(grp[stats.NearestRank(0.50, len(grp))].us) / 1000
			ws[wi].TTFTP95MS = float64(grp[stats.NearestRank(0.95, len(grp))].us) / 1000
		}
		lo = hi
	}
	return width, ws
}
