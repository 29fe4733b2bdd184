package report

import (
	"bytes"
	"testing"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/results"
)

// FuzzMetricsAdd: rows read back from a damaged or hand-edited requests.parquet can hold any
// numbers; aggregating and reporting them must not panic.
func FuzzMetricsAdd(f *testing.F) {
	f.Add(int64(0), int64(1e6), int64(2e6), int64(5e8), int64(9e8), int64(1e9), int32(100), int32(10), int32(0), "")
	f.Fuzz(func(t *testing.T, orig, sched, sent, first, last, done int64, prompt, completion, cached int32, class string) {
		r := results.Row{OriginalTimestampNS: orig, ScheduledNS: sched, SentNS: sent, QueueWaitNS: sched - sent,
			FirstTokenNS: first, LastTokenNS: last, DoneNS: done, ChunkNS: []int64{first, (first + last) / 2, last},
			TargetPromptTokens: prompt, TargetOutputTokens: completion, PromptTokens: prompt,
			CompletionTokens: completion, CachedTokens: cached, ErrorClass: class}
		slo, _ := analysis.ParseSLO("ttft=1s,itl=50ms,tpot=20ms,e2e=5s")
		m := analysis.NewMetrics(analysis.Options{SLO: slo, CostPerHour: 1})
		for i := 0; i < 3; i++ {
			m.Add(&r)
			r.SentNS, r.OriginalTimestampNS = r.SentNS/2, r.OriginalTimestampNS/3
		}
		s := m.Summary(analysis.RunInfo{})
		var buf bytes.Buffer
		if err := WriteTable(&buf, s); err != nil {
			t.Fatal(err)
		}
		m.Windows()
	})
}
