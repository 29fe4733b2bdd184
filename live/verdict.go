package live

import (
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// verdictSoFar judges the run as its end will (analysis.Summary's verdict), from what has
// finished: client-bound when requests failed on this machine's limits or the send lateness
// p99 is over the limit, failed when the endpoint failed more than the allowed share, else ok.
// The lateness p99 comes from bucket counts (the upper bound of the bucket holding it), so it
// may read one bucket high, never low.
type verdictSoFar struct {
	mu                          sync.Mutex
	maxErrorRate                float64
	maxLateness                 float64 // seconds; 0: not judged
	total, failed, clientFailed int64
	late                        []int64 // counts per latenessBuckets bucket, one more for the overflow
}

func newVerdictSoFar(maxErrorRate float64, maxLateness time.Duration) *verdictSoFar {
	return &verdictSoFar{maxErrorRate: maxErrorRate, maxLateness: max(maxLateness.Seconds(), 0),
		late: make([]int64, len(latenessBuckets)+1)}
}

func (v *verdictSoFar) sent(lateness float64) {
	v.mu.Lock()
	v.late[sort.SearchFloat64s(latenessBuckets, lateness)]++
	v.mu.Unlock()
}

func (v *verdictSoFar) finished(class string) {
	v.mu.Lock()
	v.total++
	if class != "" {
		v.failed++
	}
	if class == "client" {
		v.clientFailed++
	}
	v.mu.Unlock()
}

// Verdicts are the values of the verdict label.
var verdicts = []string{"ok", "failed", "client-bound"}

// now is the verdict so far.
func (v *verdictSoFar) now() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	switch {
	case v.clientFailed > 0 || (v.maxLateness > 0 && v.latenessP99() > v.maxLateness):
		return "client-bound"
	case v.total > 0 && float64(v.failed-v.clientFailed)/float64(v.total) > v.maxErrorRate:
		return "failed"
	}
	return "ok"
}

// latenessP99 is the upper bound of the bucket holding the 99th percentile (+Inf past the
// last bucket).
func (v *verdictSoFar) latenessP99() float64 {
	var n int64
	for _, c := range v.late {
		n += c
	}
	if n == 0 {
		return 0
	}
	rank, seen := (n*99+99)/100, int64(0)
	for i, c := range v.late {
		if seen += c; seen >= rank {
			if i == len(latenessBuckets) {
				return latenessBuckets[i-1] * 10
			}
			return latenessBuckets[i]
		}
	}
	return 0
}

// collector exports the verdict one-hot: replay_verdict{verdict="..."} 1 for the current one.
func (v *verdictSoFar) collector(labels prometheus.Labels) prometheus.Collector {
	desc := prometheus.NewDesc("replay_verdict", "The run's verdict so far, one-hot (ok, failed, client-bound).", []string{"verdict"}, labels)
	return verdictCollector{v: v, desc: desc}
}

type verdictCollector struct {
	v    *verdictSoFar
	desc *prometheus.Desc
}

func (c verdictCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c verdictCollector) Collect(ch chan<- prometheus.Metric) {
	now := c.v.now()
	for _, name := range verdicts {
		val := 0.0
		if name == now {
			val = 1
		}
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, val, name)
	}
}
