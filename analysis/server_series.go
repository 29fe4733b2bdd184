package analysis

import (
	"math"

	"github.com/llm-replay/replay/results"
)

// ServerPoint is one scrape of the endpoint's own queue: requests it was running and holding
// waiting, at OffsetS seconds since the measured run started. NaN marks a missing figure.
type ServerPoint struct {
	OffsetS, Running, Waiting float64
}

// AddServerSamples keeps the endpoint's running and waiting request counts from its /metrics
// (server_metrics.jsonl's samples, as scraped, whose offsets count from the measured phase's start like the
// rows' do) so that report.html can draw them beside the client's in-flight count.
func (m *Metrics) AddServerSamples(ss []results.ServerSample) {
	for _, s := range ss {
		r, okR := s.Values[results.RequestsRunning]
		w, okW := s.Values[results.RequestsWaiting]
		if !okR && !okW || math.IsNaN(s.OffsetS) || math.IsInf(s.OffsetS, 0) {
			continue
		}
		if !okR {
			r = math.NaN()
		}
		if !okW {
			w = math.NaN()
		}
		m.server = append(m.server, ServerPoint{OffsetS: s.OffsetS, Running: r, Waiting: w})
	}
}

// ServerPoints is the endpoint's queue as scraped, in scrape order, for report.html's plot.
func (m *Metrics) ServerPoints() []ServerPoint { return m.server }
