package trend

import (
	"strings"
	"testing"
	"time"
)

// TestBuildFlagsTheOutlier: five runs within a few percent of each other and one whose
// TTFT is twice theirs: that one only is flagged, on both judged TTFT figures, whatever the
// order the folders were given in.
func TestBuildFlagsTheOutlier(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	var runs []Run
	for i, p95 := range []float64{100, 104, 98, 210, 101, 97} {
		g := 99.0
		runs = append(runs, Run{Dir: string(rune('a' + i)), StartedAt: t0.Add(time.Duration(5-i) * time.Hour),
			TTFTP50: p95 * 0.6, TTFTP95: p95, TTFTP99: p95 * 1.3, GoodputPct: &g})
	}
	tr, err := Build(runs, DefaultK)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Flagged) != 1 || tr.Flagged[0] != "d" {
		t.Fatalf("flagged %v, want [d]", tr.Flagged)
	}
	for _, r := range tr.Runs {
		if r.Dir == "d" && (len(r.Outside) != 2 || !strings.Contains(r.Outside[1], "ttft_p95_ms 210")) {
			t.Errorf("d: %v", r.Outside)
		}
	}
	if !tr.Runs[0].StartedAt.Equal(t0) || tr.Spread["ttft_p95_ms"].Median != 100.5 {
		t.Errorf("runs not in time order or spread wrong: first %v, spread %+v", tr.Runs[0].StartedAt, tr.Spread["ttft_p95_ms"])
	}
	if _, err := Build(runs[:2], DefaultK); err == nil || !strings.Contains(err.Error(), "3 runs") {
		t.Errorf("two runs: %v", err)
	}
}

// TestTrendBandFloor: identical runs have a MAD of 0; the 20% floor keeps a run 15% off inside.
func TestTrendBandFloor(t *testing.T) {
	lo, hi := Band([]float64{100, 100, 100, 100}, 3)
	if lo != 80 || hi != 120 {
		t.Errorf("band [%v, %v], want [80, 120]", lo, hi)
	}
}
