package analysis

import (
	"testing"

	"github.com/llm-replay/replay/results"
)

// TestRequestValues: only a request's final, successful, non-warmup attempt gives values, TTFT
// needs a token and TPOT two; PairedTests pairs them by id.
func TestRequestValues(t *testing.T) {
	const ms = int64(1e6)
	row := func(id string, ttft, e2e int64) results.Row {
		return results.Row{RequestID: id, SentNS: 10 * ms, FirstTokenNS: (10 + ttft) * ms,
			LastTokenNS: (10 + e2e) * ms, DoneNS: (10 + e2e) * ms, CompletionTokens: 11, HTTPStatus: 200}
	}
	rows := []results.Row{row("ok", 100, 600), row("warm", 1, 2), row("fail", 5, 6), row("retried", 7, 8), row("noToken", 0, 50)}
	rows[1].Warmup = true
	rows[2].ErrorClass = "http_5xx"
	rows[3].Retried = true
	rows[4].FirstTokenNS = 0
	v := NewRequestValues()
	for i := range rows {
		v.Add(&rows[i])
	}
	if len(v.TTFT) != 1 || v.TTFT["ok"] != 100 || v.TPOT["ok"] != 50 || len(v.E2E) != 2 || v.E2E["noToken"] != 50 {
		t.Fatalf("%+v", v)
	}
	tests := PairedTests(v, v, PairedOptions{})
	if len(tests) != 3 || tests[0].Name != "ttft" || tests[1].N != 2 || tests[2].Name != "tpot" {
		t.Errorf("%+v", tests)
	}
}
