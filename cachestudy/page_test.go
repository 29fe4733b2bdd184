package cachestudy

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/prefixcache"
	"github.com/llm-replay/replay/report"
	"github.com/llm-replay/replay/stats"
)

// TestCacheStudyPage: the page puts the verdict, the curve with the engine's capacity and the
// measured point, and the paired TTFT plot first, in that order, and states what it drew.
func TestCacheStudyPage(t *testing.T) {
	c := prefixcache.NewCurve()
	for i := range 200 {
		c.AddPrompt([]uint64{uint64(i % 7), uint64(1000 + i)}, 16, 32)
	}
	measured := 20.0
	st := &Study{Verdict: "prefix caching saved 20.0% of prefill tokens", Lines: []string{"throughput 1 vs 1 req/s"},
		Trace: "t.jsonl", BlockSize: 16, Requests: 200, DistinctBlocks: c.Distinct(),
		IdealTokenHitPct: analysis.Round3(100 * c.TokensAt(0).Rate()),
		Curve:            curvePoints(c, CurveCapacities(c.Distinct(), 4), prefixcache.KVSize{}),
		Capacity:         &EngineCapacity{Source: "test", Tokens: 64, TraceBlocks: 4},
		MeasuredHitPct:   &measured, MeasuredSource: "usage",
		Pairs: []stats.Pair{{ID: "1", A: 10, B: 5}, {ID: "2", A: 12, B: 12}},
		Arms:  map[string]Arm{Traced: {}, Unique: {}},
	}
	st.PredictedHitPct = ptrF(analysis.Round3(100 * c.TokensAt(4).Rate()))
	var buf bytes.Buffer
	if err := WriteHTML(&buf, st, report.Options{NoEmbedFont: true}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	v, cv, pt := strings.Index(page, `id="verdict"`), strings.Index(page, `id="curve"`), strings.Index(page, `id="paired-ttft"`)
	if v < 0 || cv < v || pt < cv || strings.Count(page, "<svg") != 2 {
		t.Fatalf("verdict at %d, curve at %d, paired at %d, %d plots", v, cv, pt, strings.Count(page, "<svg"))
	}
	for _, want := range []string{st.Verdict, "engine capacity 64 tokens: predicted", "measured 20.0% (usage)", "2 requests", "infinite"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func ptrF(v float64) *float64 { return &v }
