package live

import "github.com/prometheus/client_golang/prometheus"

// factory makes series with the run's constant labels in its registry.
type factory struct {
	reg    *prometheus.Registry
	labels prometheus.Labels
}

func (f factory) counter(name, help string) prometheus.Counter {
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: f.labels})
	f.reg.MustRegister(c)
	return c
}

func (f factory) counterVec(name, help, label string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: f.labels}, []string{label})
	f.reg.MustRegister(c)
	return c
}

// histogramOpts gives a native histogram (5% buckets) beside the classic ones, so a Prometheus
// that scrapes native histograms gets fine quantiles and one that does not still gets buckets.
func (f factory) histogramOpts(name, help string, buckets []float64) prometheus.HistogramOpts {
	return prometheus.HistogramOpts{Name: name, Help: help, ConstLabels: f.labels, Buckets: buckets,
		NativeHistogramBucketFactor: 1.05, NativeHistogramMaxBucketNumber: 160}
}

func (f factory) histogram(name, help string, buckets []float64) prometheus.Histogram {
	h := prometheus.NewHistogram(f.histogramOpts(name, help, buckets))
	f.reg.MustRegister(h)
	return h
}

func (f factory) histogramVec(name, help string, buckets []float64) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(f.histogramOpts(name, help, buckets), []string{"population"})
	f.reg.MustRegister(h)
	return h
}

// counterFunc and gaugeFunc read a live count at scrape time; a nil read gives 0.
func (f factory) counterFunc(name, help string, read func() int64) {
	f.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: f.labels}, value(read)))
}

func (f factory) gaugeFunc(name, help string, read func() int64) {
	f.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: f.labels}, value(read)))
}

func value(read func() int64) func() float64 {
	if read == nil {
		return func() float64 { return 0 }
	}
	return func() float64 { return float64(read()) }
}
