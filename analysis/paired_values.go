package analysis

import (
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/stats"
)

// RequestValues are one run's per-request latencies in ms keyed by request id, the input of
// Paired. Only a request's final attempt counts, and only when it succeeded: a request that
// failed in either run has no value to pair. TTFT needs a token, TPOT two.
type RequestValues struct {
	TTFT map[string]float64
	E2E  map[string]float64
	TPOT map[string]float64
}

// NewRequestValues returns empty maps to Add rows to.
func NewRequestValues() *RequestValues {
	return &RequestValues{TTFT: map[string]float64{}, E2E: map[string]float64{}, TPOT: map[string]float64{}}
}

// Add takes one result row; warmup rows, retried attempts and failures are skipped.
func (v *RequestValues) Add(r *results.Row) {
	if r.Warmup || !r.Final() || !r.OK() || r.RequestID == "" {
		return
	}
	const nsPerMS = 1e6
	v.E2E[r.RequestID] = float64(r.DoneNS-r.SentNS) / nsPerMS
	if r.FirstTokenNS <= 0 {
		return
	}
	v.TTFT[r.RequestID] = float64(r.FirstTokenNS-r.SentNS) / nsPerMS
	// TPOT as Metrics counts it: (last - first token) / (output tokens - 1).
	if out := outputTokens(r); out >= 2 && r.LastTokenNS >= r.FirstTokenNS {
		v.TPOT[r.RequestID] = float64(r.LastTokenNS-r.FirstTokenNS) / float64(out-1) / nsPerMS
	}
}

// PairedTests runs Paired on TTFT, e2e and TPOT, in that order.
func PairedTests(a, b *RequestValues, o PairedOptions) []PairedTest {
	return []PairedTest{
		stats.Paired("ttft", a.TTFT, b.TTFT, o),
		stats.Paired("e2e", a.E2E, b.E2E, o),
		stats.Paired("tpot", a.TPOT, b.TPOT, o),
	}
}
