package analysis

import (
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results"
)

// BenchmarkMetricsAdd aggregates a 100,000-request run with 200 chunks per request (ITL over
// 19.9 M gaps). To keep memory small on shared machines it cycles 1,000 template rows, shifting
// their offsets by 10 s per cycle (outside the timer) so the time series grows as in a real run.
func BenchmarkMetricsAdd(b *testing.B) {
	const rowsPerRun, templates = 100_000, 1_000
	tpl := testenv.SynthRows(testenv.SynthRun{N: templates, Seed: 5, Rate: 100, TTFTMS: 150, TTFTSigma: 0.5,
		ITLMS: 20, MaxOut: 1, ErrRate: 0})
	for i := range tpl {
		r := &tpl[i]
		r.ChunkNS = make([]int64, 200)
		for k := range r.ChunkNS {
			r.ChunkNS[k] = r.FirstTokenNS + int64(k)*20_000_000 + int64(i%7)*1000
		}
		r.LastTokenNS = r.ChunkNS[199]
		r.DoneNS = r.LastTokenNS
		r.CompletionTokens, r.TargetOutputTokens = 200, 200
	}
	shift := func(rows []results.Row, d int64) {
		for i := range rows {
			r := &rows[i]
			r.OriginalTimestampNS += d
			r.ScheduledNS += d
			r.SentNS += d
			r.FirstTokenNS += d
			r.LastTokenNS += d
			r.DoneNS += d
			for k := range r.ChunkNS {
				r.ChunkNS[k] += d
			}
		}
	}
	slo, _ := ParseSLO("ttft=500ms,itl=60ms,e2e=10s")
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		m := NewMetrics(Options{SLO: slo})
		var moved int64
		for i := 0; i < rowsPerRun; i++ {
			if i > 0 && i%templates == 0 {
				b.StopTimer()
				shift(tpl, 10e9)
				moved += 10e9
				b.StartTimer()
			}
			m.Add(&tpl[i%templates])
		}
		m.Close()
		b.StopTimer()
		shift(tpl, -moved)
		b.StartTimer()
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(rowsPerRun*b.N)/sec, "rows/s")
	b.ReportMetric(float64(rowsPerRun*200*b.N)/sec, "chunks/s")
}
