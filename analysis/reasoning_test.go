package analysis

import (
	"testing"
	"time"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results"
)

// thinkingRow is a streamed row that thinks for the first `thinking` of its chunks (10 ms
// apart after a 100 ms TTFT) and answers with the rest, each 20 ms after the chunk before.
func thinkingRow(id string, thinking, answer int, logged int32) results.Row {
	gaps := make([]int64, 0, thinking+answer)
	for i := 1; i < thinking+answer; i++ {
		g := int64(10)
		if i >= thinking {
			g = 20
		}
		gaps = append(gaps, g)
	}
	r := testenv.OKRow(id, 0, 100, gaps...)
	r.Population = results.Population(true, results.KindPlain)
	r.ReasoningTokens, r.AnswerTokens, r.TargetReasoningTokens = int32(thinking), int32(answer), logged
	if thinking > 0 {
		r.FirstReasoningNS = r.ChunkNS[0]
	}
	if answer > 0 {
		r.FirstAnswerNS = r.ChunkNS[thinking]
	}
	return r
}

// TTFAT is from the send to the first answer chunk; a request that thought and never answered
// counts in the reasoning figures, not in TTFAT, and misses a ttfat SLO; the split is compared
// with the log's.
func TestReasoningFigures(t *testing.T) {
	slo, err := ParseSLO("ttfat=250ms,ttft=150ms")
	if err != nil || slo.TTFAT != 250*time.Millisecond || slo.String() != "ttft=150ms,ttfat=250ms" {
		t.Fatalf("ParseSLO: %+v %v", slo, err)
	}
	m := NewMetrics(Options{SLO: slo})
	rows := []results.Row{
		thinkingRow("think", 10, 5, 10), // answers at 100+9·10+20 = 210 ms: meets ttfat
		thinkingRow("long", 20, 5, 19),  // answers at 100+19·10+20 = 310 ms: misses; one off the log
		thinkingRow("never", 8, 0, 8),   // thought to the cap
		thinkingRow("plain", 0, 6, -1),  // no thinking, log silent: TTFAT is TTFT
	}
	for i := range rows {
		m.Add(&rows[i])
	}
	s := m.Summary(RunInfo{})
	if s.TTFAT.Count != 3 || s.TTFAT.Max < 309.9 || s.TTFAT.Max > 310.1 || s.TTFAT.Min < 99.9 || s.TTFAT.Min > 100.1 {
		t.Errorf("ttfat_ms %+v: want 3 answered, 100 to 310", s.TTFAT)
	}
	r := s.Reasoning
	if r == nil || r.Requests != 3 || r.NeverAnswered != 1 || r.ReasoningTokens != 38 || r.AnswerTokens != 16 {
		t.Fatalf("reasoning %+v", r)
	}
	if r.Logged != 3 || r.SplitExactPct == nil || *r.SplitExactPct < 66.6 || *r.SplitExactPct > 66.7 || len(r.Unequal) != 1 || r.Unequal[0].RequestID != "long" {
		t.Errorf("split: logged %d exact %v unequal %+v", r.Logged, r.SplitExactPct, r.Unequal)
	}
	if r.ITLThinking.Max < 9.9 || r.ITLThinking.Max > 10.1 || r.ITLAnswer.Max < 19.9 || r.ITLAnswer.Max > 20.1 {
		t.Errorf("itl thinking %+v answer %+v", r.ITLThinking, r.ITLAnswer)
	}
	if g := s.Goodput; g == nil || g.MetPct["ttfat"] != 50 || g.MetPct["ttft"] != 100 {
		t.Errorf("goodput %+v: ttfat met by think and plain of four", g)
	}
}
