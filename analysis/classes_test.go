package analysis

import (
	"testing"
	"time"

	"github.com/llm-replay/replay/results"
)

// TestClassesAndModels: rows of two classes on two served models get a section each, each
// class judged by its own limits (the other by the run's), the counts and goodput exact.
func TestClassesAndModels(t *testing.T) {
	tight, _ := ParseSLO("ttft=50ms")
	m := NewMetrics(Options{SLO: SLO{TTFT: time.Second}, ClassSLOs: map[string]SLO{"chat": tight}})
	row := func(i int, class, model string, ttftMS int64) *results.Row {
		sent := int64(i) * 1e9
		first := sent + ttftMS*1e6
		return &results.Row{RequestID: string(rune('a' + i)), SLOClass: class, Model: model, HTTPStatus: 200,
			ScheduledNS: sent, SentNS: sent, FirstTokenNS: first, LastTokenNS: first + 20e6, DoneNS: first + 20e6,
			ChunkNS: []int64{first, first + 10e6, first + 20e6}, CompletionTokens: 3, TargetOutputTokens: 3, Population: "stream/plain"}
	}
	m.Add(row(0, "chat", "big", 40))
	m.Add(row(1, "chat", "big", 100)) // misses chat's 50ms
	m.Add(row(2, "batch", "small", 100))
	m.Add(row(3, "batch", "small", 900))
	m.Close()
	s := m.Summary(RunInfo{})
	chat, batch := s.SLOClasses["chat"], s.SLOClasses["batch"]
	if chat.Requests != 2 || batch.Requests != 2 || len(s.SLOClasses) != 2 {
		t.Fatalf("classes %+v", s.SLOClasses)
	}
	if chat.Goodput == nil || chat.Goodput.AllPct != 50 || chat.Goodput.LimitsMS["ttft"] != 50 {
		t.Errorf("chat goodput %+v", chat.Goodput)
	}
	if batch.Goodput == nil || batch.Goodput.AllPct != 100 || batch.Goodput.LimitsMS["ttft"] != 1000 {
		t.Errorf("batch goodput %+v", batch.Goodput)
	}
	if s.Models["big"].Requests != 2 || s.Models["small"].TTFT.Max < 899 || s.Models["big"].TTFT.Max > 101 {
		t.Errorf("models %+v", s.Models)
	}
	if s.Models["big"].Goodput.AllPct != 100 {
		t.Errorf("a model is judged by the run's --slo: %+v", s.Models["big"].Goodput)
	}
	if m.classes.byName["chat"].classes != nil {
		t.Error("a group grouped its rows again")
	}
}
