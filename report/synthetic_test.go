package report

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/results"
)

// synthSpec describes a seeded synthetic run: Poisson arrivals, lognormal TTFT and ITL, a few
// failures and warmup rows. It stands in for a real run where a test needs many realistic rows.
type synthSpec struct {
	n          int
	seed       uint64
	rate       float64 // arrivals per second at the run's speed
	speed      float64
	ttftMS     float64 // median TTFT
	ttftSigma  float64 // lognormal sigma of TTFT
	itlMS      float64 // median inter-token gap
	maxOut     int     // output tokens uniform in [1, maxOut]
	errRate    float64
	warmup     int
	noUsageMod int // every noUsageMod-th row has no usage (0: all have usage)
}

func synthRows(sp synthSpec) []results.Row {
	rng := rand.New(rand.NewPCG(sp.seed, 0x5eed))
	speed := sp.speed
	if speed == 0 {
		speed = 1
	}
	classes := []string{"http_429", "timeout", "http_5xx", "stream_broken"}
	rows := make([]results.Row, 0, sp.n+sp.warmup)
	var t float64 // seconds, at run speed
	for i := 0; i < sp.n+sp.warmup; i++ {
		warm := i < sp.warmup
		if !warm {
			t += rng.ExpFloat64() / sp.rate
		}
		sched := int64(t * 1e9)
		late := int64(rng.IntN(300_000)) // up to 0.3 ms
		sent := sched + late
		ttft := int64(sp.ttftMS * math.Exp(sp.ttftSigma*rng.NormFloat64()) * 1e6)
		out := 1 + rng.IntN(sp.maxOut)
		chunks := make([]int64, out)
		c := sent + ttft
		for k := range chunks {
			if k > 0 {
				c += int64(sp.itlMS * math.Exp(0.3*rng.NormFloat64()) * 1e6)
			}
			chunks[k] = c
		}
		prompt := int32(100 + rng.IntN(2000))
		r := results.Row{
			RequestID: fmt.Sprintf("r%05d", i), Warmup: warm,
			OriginalTimestampNS: int64(t * speed * 1e9), ScheduledNS: sched, SentNS: sent,
			FirstTokenNS: chunks[0], LastTokenNS: chunks[out-1], DoneNS: chunks[out-1] + 200_000,
			ChunkNS: chunks, TargetPromptTokens: prompt, TargetOutputTokens: int32(out),
			PromptTokens: prompt, CompletionTokens: int32(out), CachedTokens: prompt / 512 * 256,
			HTTPStatus: 200, Endpoint: "sim",
		}
		if sp.noUsageMod > 0 && i%sp.noUsageMod == 0 {
			r.PromptTokens, r.CompletionTokens, r.CachedTokens = -1, -1, 0
		}
		if !warm && rng.Float64() < sp.errRate {
			cl := classes[rng.IntN(len(classes))]
			r.ErrorClass, r.ErrorMessage, r.HTTPStatus = cl, "synthetic "+cl, 500
			r.FirstTokenNS, r.LastTokenNS, r.ChunkNS = 0, 0, nil
			r.DoneNS = sent + ttft
			r.PromptTokens, r.CompletionTokens, r.CachedTokens = -1, -1, 0
		}
		rows = append(rows, r)
	}
	return rows
}

// goldenSpec is the fixed input of the golden report and table.
var goldenSpec = synthSpec{n: 600, seed: 7, rate: 20, speed: 2, ttftMS: 120, ttftSigma: 0.5,
	itlMS: 25, maxOut: 60, errRate: 0.03, warmup: 3, noUsageMod: 50}

// goldenMetrics aggregates goldenSpec's rows with the endpoint's queue and the caches as
// scraped: the input of the golden page and table.
func goldenMetrics(t testing.TB) (*analysis.Metrics, *analysis.Summary) {
	slo, err := analysis.ParseSLO("ttft=250ms,itl=60ms,e2e=3s")
	if err != nil {
		t.Fatal(err)
	}
	m := analysis.NewMetrics(analysis.Options{Speed: goldenSpec.speed, SLO: slo, CostPerHour: 2.5, GPUs: 2})
	rows := synthRows(goldenSpec)
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
	ideal := analysis.NewIdealCounter()
	ideal.Add([]uint64{1, 2, 3}, 16, 48)
	ideal.Add([]uint64{1, 2, 4}, 16, 40)
	queried, hit := 614597.0, 230000.0
	s := m.Summary(analysis.RunInfo{Endpoint: "http://127.0.0.1:8000/v1", Model: "synthetic", API: "chat",
		Trace: "synthetic.jsonl", Simulated: true, Version: "test",
		StartedAt:   time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC),
		ServerCache: &analysis.ServerCache{MetricsURL: "http://127.0.0.1:8000/metrics", Scrapes: 31, QueriedTokens: &queried, HitTokens: &hit},
		IdealCache:  ideal.Result()})
	return m, s
}
