package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results"
)

// goldenMetrics aggregates goldenSpec's rows with the endpoint's queue and the caches as
// scraped (report's golden page and table are drawn from the same).
func goldenMetrics(t testing.TB) (*Metrics, *Summary) {
	slo, err := ParseSLO("ttft=250ms,itl=60ms,e2e=3s")
	if err != nil {
		t.Fatal(err)
	}
	m := NewMetrics(Options{Speed: testenv.GoldenRun.Speed, SLO: slo, CostPerHour: 2.5, GPUs: 2})
	rows := testenv.SynthRows(testenv.GoldenRun)
	for i := range rows {
		m.Add(&rows[i])
	}
	// The endpoint's queue as scraped from its /metrics: filling up, then draining.
	var samples []results.ServerSample
	for i, q := range []float64{0, 4, 9, 14, 12, 6, 1, 0} {
		samples = append(samples, results.ServerSample{OffsetS: float64(i) * 5, Values: map[string]float64{
			results.RequestsRunning: math.Min(q, 8), results.RequestsWaiting: math.Max(q-8, 0)}})
	}
	m.AddServerSamples(samples)
	ideal := NewIdealCounter()
	ideal.Add([]uint64{1, 2, 3}, 16, 48)
	ideal.Add([]uint64{1, 2, 4}, 16, 40)
	queried, hit := 614597.0, 230000.0
	s := m.Summary(RunInfo{Endpoint: "http://127.0.0.1:8000/v1", Model: "synthetic", API: "chat",
		Trace: "synthetic.jsonl", Simulated: true, Version: "test",
		StartedAt:   time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC),
		ServerCache: &ServerCache{MetricsURL: "http://127.0.0.1:8000/metrics", Scrapes: 31, QueriedTokens: &queried, HitTokens: &hit},
		IdealCache:  ideal.Result()})
	return m, s
}
