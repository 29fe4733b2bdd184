package analysis

import (
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histograms hold microseconds with 3 significant digits: a percentile is exact to 0.1%, which is
// well under what any endpoint's run-to-run noise is. The highest trackable value is a day; larger
// values are clamped (and still counted) rather than dropped.
const (
	histLowestUS  = 1
	histHighestUS = int64(24 * 3600 * 1e6)
	histDigits    = 3
)

// latency is one distribution: an HdrHistogram for the percentiles plus an exact count, sum,
// min and max (the histogram's own max is rounded up to its bucket).
type latency struct {
	h     *hdrhistogram.Histogram
	n     int64
	sumUS float64
	minUS int64
	maxUS int64
}

func newLatency() *latency {
	return &latency{h: hdrhistogram.New(histLowestUS, histHighestUS, histDigits)}
}

// recordNS records one duration given in nanoseconds; negative durations count as zero (a clock
// can only make them by rounding, and HdrHistogram cannot hold them).
func (l *latency) recordNS(ns int64) {
	us := (ns + 500) / 1000
	if us < 0 {
		us = 0
	}
	if us > histHighestUS {
		us = histHighestUS
	}
	_ = l.h.RecordValue(us) // cannot fail: us is clamped to the trackable range
	if l.n == 0 || us < l.minUS {
		l.minUS = us
	}
	if us > l.maxUS {
		l.maxUS = us
	}
	l.n++
	l.sumUS += float64(us)
}

// recordGapsNS records the gap between each two neighbouring offsets (ns), exactly as
// recordNS of each gap in turn would, and returns the largest gap (0 for fewer than two). A
// run of equal gaps (a zero-cost run's chunks all land at once) goes into the histogram as
// one count: a request's inter-token gaps were a fifth of the report's time.
func (l *latency) recordGapsNS(offsets []int64) (maxGapNS int64) {
	runUS, run := int64(-1), int64(0)
	for i := 1; i < len(offsets); i++ {
		g := offsets[i] - offsets[i-1]
		maxGapNS = max(maxGapNS, g)
		us := min(max((g+500)/1000, 0), histHighestUS)
		l.sumUS += float64(us) // one addition per gap, as recordNS makes them
		if us == runUS {
			run++
			continue
		}
		l.flushRun(runUS, run)
		runUS, run = us, 1
	}
	l.flushRun(runUS, run)
	return maxGapNS
}

// flushRun records n values of us (n may be 0), all but the sum, which the caller adds.
func (l *latency) flushRun(us, n int64) {
	if n == 0 {
		return
	}
	_ = l.h.RecordValues(us, n) // cannot fail: us is clamped to the trackable range
	if l.n == 0 || us < l.minUS {
		l.minUS = us
	}
	if us > l.maxUS {
		l.maxUS = us
	}
	l.n += n
}

// quantileUS returns the nearest-rank value at q (0..100), in microseconds.
func (l *latency) quantileUS(q float64) int64 {
	if l.n == 0 {
		return 0
	}
	v := l.h.ValueAtQuantile(q)
	// The histogram answers with the top of the value's bucket; never above the exact max.
	if v > l.maxUS {
		v = l.maxUS
	}
	return v
}

// Dist is a latency distribution in milliseconds, as written to summary.json. With no samples
// every figure is 0 and Count says so.
type Dist struct {
	Count int64   `json:"count"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p99_9"`
	Max   float64 `json:"max"`
	Min   float64 `json:"min"`
	Mean  float64 `json:"mean"`
}

func (l *latency) dist() Dist {
	if l.n == 0 {
		return Dist{}
	}
	return Dist{
		Count: l.n,
		P50:   usToMS(l.quantileUS(50)),
		P90:   usToMS(l.quantileUS(90)),
		P95:   usToMS(l.quantileUS(95)),
		P99:   usToMS(l.quantileUS(99)),
		P999:  usToMS(l.quantileUS(99.9)),
		Max:   usToMS(l.maxUS),
		Min:   usToMS(l.minUS),
		Mean:  round3(l.sumUS / float64(l.n) / 1000),
	}
}

func usToMS(us int64) float64 { return float64(us) / 1000 }

// round3 keeps microsecond resolution for values in milliseconds (and three decimals elsewhere),
// so JSON and golden files do not carry float noise.
func round3(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return math.Round(x*1000) / 1000
}

// Round3 is round3 for the study packages' own figures (trend's spread), so their JSON rounds
// as summary.json does.
func Round3(x float64) float64 { return round3(x) }

// Histogram is a latency distribution as report.html draws it: read-only, in microseconds.
type Histogram struct{ l *latency }

// Bar is one HdrHistogram bucket: the values from FromUS to ToUS µs, Count of them.
type Bar struct{ FromUS, ToUS, Count int64 }

// TTFTHistogram is the run's time-to-first-token distribution.
func (m *Metrics) TTFTHistogram() Histogram { return Histogram{m.ttft} }

// ITLHistogram is the run's inter-token gaps' distribution.
func (m *Metrics) ITLHistogram() Histogram { return Histogram{m.itl} }

// Count is how many values the distribution holds.
func (h Histogram) Count() int64 { return h.l.n }

// MinUS is the least value, exact.
func (h Histogram) MinUS() int64 { return h.l.minUS }

// QuantileUS is the value at percentile q (0-100).
func (h Histogram) QuantileUS(q float64) int64 { return h.l.quantileUS(q) }

// Bars is every bucket in value order, empty ones included.
func (h Histogram) Bars() []Bar {
	d := h.l.h.Distribution()
	out := make([]Bar, len(d))
	for i, b := range d {
		out[i] = Bar{b.From, b.To, b.Count}
	}
	return out
}
