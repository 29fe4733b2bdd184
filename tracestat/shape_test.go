package tracestat

import (
	"math"
	"testing"
	"time"

	"github.com/llm-replay/replay/trace"
)

func TestStatsShape(t *testing.T) {
	var recs []trace.Record
	for i := 0; i < 100; i++ {
		recs = append(recs, trace.Record{Timestamp: time.Duration(i) * 100 * time.Millisecond, PromptTokens: i + 1, OutputTokens: 100 - i})
	}
	s := Stats(recs)
	if s.Records != 100 || math.Abs(s.SpanSeconds-9.9) > 1e-9 || math.Abs(s.MeanRate-100/9.9) > 1e-9 {
		t.Fatalf("span/rate %+v", s)
	}
	if s.GapCV > 1e-9 || s.PeakSecond != 10 || s.SameInstant != 0 {
		t.Errorf("evenly spaced arrivals: cv %v, peak %d", s.GapCV, s.PeakSecond)
	}
	if s.Prompt != (Distribution{Mean: 50.5, P50: 50, P90: 90, P95: 95, P99: 99, Max: 100}) {
		t.Errorf("prompt %+v", s.Prompt)
	}
	if s.Output.P50 != 50 || s.Output.Max != 100 || s.HashedRecords != 0 || s.IdealHitRate != 0 {
		t.Errorf("output/hashes %+v", s)
	}

	// Bursts: pairs arriving together every second give gaps 0,1,0,...,0 (ten 0 s, nine 1 s:
	// mean 9/19, sample standard deviation 0.513, CV 1.083) and a busiest second of 2.
	recs = recs[:0]
	for i := 0; i < 20; i++ {
		recs = append(recs, trace.Record{Timestamp: time.Duration(i/2) * time.Second, PromptTokens: 1024, BlockHashes: []uint64{1, uint64(i + 2)}, BlockSize: 512})
	}
	s = Stats(recs)
	if s.SameInstant != 10 || s.PeakSecond != 2 || math.Abs(s.GapCV-1.083) > 0.001 {
		t.Errorf("bursty: same %d, peak %d, cv %.3f", s.SameInstant, s.PeakSecond, s.GapCV)
	}
	// Block 1 is shared by all 20 requests: 19 hits of 40 blocks.
	if s.Prefix.Hits != 19 || s.Prefix.Blocks != 40 || s.IdealHitRate != 19.0/40 || s.BlockSize != 512 {
		t.Errorf("prefix %+v rate %v", s.Prefix, s.IdealHitRate)
	}
	if (Stats(nil) != Shape{}) {
		t.Error("empty stats")
	}
}
