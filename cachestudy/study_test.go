package cachestudy

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/runner"
	"github.com/llm-replay/replay/scheduler"
	"github.com/llm-replay/replay/sim"
	"github.com/llm-replay/replay/stats"
)

// studyTrace writes n Mooncake rows (512-token blocks), one every gap: each prompt is two
// blocks shared by one of groups groups, picked at random, then a block of its own, with a
// two-token answer. How much an LRU cache of C blocks keeps of those prefixes depends on C:
// about the last C/3 requests' groups, so the curve falls steeply below the working set.
func studyTrace(t *testing.T, n, groups int, gap time.Duration) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(24, 1))
	recs := make([]testenv.MooncakeRecord, n)
	for i := range recs {
		g := rng.IntN(groups)
		recs[i] = testenv.MooncakeRecord{Timestamp: float64(int64(i) * gap.Milliseconds()), InputLength: 1536, OutputLength: 2,
			HashIDs: []int{2 * g, 2*g + 1, 1000 + i}}
	}
	return testenv.WriteMooncake(t, "study.jsonl", recs)
}

// TestCacheStudyCapacities runs the study against the simulator (its own HTTP server, its
// capacity read from its /metrics) at three KV capacities: one that holds every prefix, one
// of 24 trace blocks and one of 6. At each, the hit rate the simulator measured (usage and
// its counters) is within 3 points of the LRU curve's prediction at the capacity its
// vllm:cache_config_info names, the curve differs between the three by far more than that,
// and the TTFT the prefixes save shrinks with the capacity.
//
// The trace sends one request at a time (each done in about 20 ms, the next 40 ms later), so
// the simulator's cache holds what an LRU of its size holds: running requests pin no blocks a
// finished one cached.
func TestCacheStudyCapacities(t *testing.T) {
	const n, groups = 100, 16
	trace := studyTrace(t, n, groups, 40*time.Millisecond)
	caps := []struct {
		name      string
		simBlocks int // 16-token blocks
	}{{"all", 1 << 14}, {"24-blocks", 24 * 32}, {"6-blocks", 6 * 32}}
	studies := make([]*Study, len(caps))
	var mu sync.Mutex
	t.Run("capacity", func(t *testing.T) {
		for i, c := range caps {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				st := runStudy(t, trace, c.simBlocks)
				mu.Lock()
				studies[i] = st
				mu.Unlock()
			})
		}
	})
	if t.Failed() {
		return
	}
	var benefit []float64
	var predicted []float64
	for i, st := range studies {
		c := st.Capacity
		if c == nil || c.Blocks != caps[i].simBlocks || c.BlockSize != 16 || st.PredictedHitPct == nil {
			t.Fatalf("%s: engine capacity %+v, prediction %v: want the simulator's %d blocks of 16 from its metrics", caps[i].name, c, st.PredictedHitPct, caps[i].simBlocks)
		}
		tr := st.Arms[Traced]
		if tr.UsageHitPct == nil || tr.ServerHitPct == nil {
			t.Fatalf("%s: hit rates usage %v, /metrics %v: want both", caps[i].name, tr.UsageHitPct, tr.ServerHitPct)
		}
		for src, m := range map[string]float64{"usage": *tr.UsageHitPct, "/metrics": *tr.ServerHitPct} {
			if d := math.Abs(m - *st.PredictedHitPct); d > 3 {
				t.Errorf("%s: hit rate from %s %.2f%% is %.2f points from the LRU prediction %.2f%% at %d trace blocks", caps[i].name, src, m, d, *st.PredictedHitPct, c.TraceBlocks)
			}
		}
		if st.TTFT.N != n {
			t.Errorf("%s: %d pairs, want %d", caps[i].name, st.TTFT.N, n)
		}
		// The mean, not the median: at a small capacity most requests miss, and the median
		// difference of a minority of hits is zero.
		benefit = append(benefit, -st.TTFTMeanDiffMS)
		predicted = append(predicted, *st.PredictedHitPct)
		t.Logf("%s: %d trace blocks: predicted %.1f%%, measured %.1f%% (usage) %.1f%% (/metrics); %s", caps[i].name, c.TraceBlocks,
			*st.PredictedHitPct, *tr.UsageHitPct, *tr.ServerHitPct, st.Verdict)
	}
	for i := 1; i < len(studies); i++ {
		if predicted[i-1]-predicted[i] < 10 {
			t.Errorf("the curve predicts %.1f%% at %s and %.1f%% at %s: the capacities must differ by more than the tolerance", predicted[i-1], caps[i-1].name, predicted[i], caps[i].name)
		}
		if !(benefit[i] < benefit[i-1]) {
			t.Errorf("mean TTFT saved %.2f ms at %s, %.2f ms at %s: the benefit must shrink with the capacity", benefit[i-1], caps[i-1].name, benefit[i], caps[i].name)
		}
	}
	if studies[0].TTFT.Direction != stats.PairedFaster {
		t.Errorf("benefits %v ms, %s: caching the whole working set must make TTFT faster", benefit, studies[0].TTFT.Verdict)
	}
}

// runStudy runs a cache study of trace against the in-process simulator with simBlocks of KV
// cache and checks its files.
func runStudy(t *testing.T, trace string, simBlocks int) *Study {
	sc := sim.DefaultConfig()
	sc.NumBlocks = simBlocks
	sc.PrefillPerToken = 10 * time.Microsecond
	sc.StepBase, sc.StepPerKVToken, sc.Jitter = 2*time.Millisecond, 0, 0
	var stderr bytes.Buffer
	out := t.TempDir()
	cfg := Config{Run: runner.Config{
		Trace: trace, Out: out, Tokenizer: testenv.SampleTokenizer(),
		Schedule: scheduler.Config{Speed: 1}, MetricsInterval: 200 * time.Millisecond, SLO: analysis.SLO{TTFT: 15 * time.Millisecond},
		Sim: sc, Stderr: &syncWriter{w: &stderr}, Stdout: &bytes.Buffer{}, SnapshotEvery: -1,
	}}
	st, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, f := range []string{File, PageFile, "traced/summary.json", "unique/requests.parquet"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, File))
	if err != nil {
		t.Fatal(err)
	}
	var back Study
	if err := json.Unmarshal(b, &back); err != nil || back.Verdict != st.Verdict {
		t.Errorf("%s: %v, verdict %q, want %q", File, err, back.Verdict, st.Verdict)
	}
	return st
}

// syncWriter serializes writes from a run's goroutines into one buffer.
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// TestCacheStudyNoBlockHashes: a window without block hashes has no curve, and the study says
// so before the simulator starts or any request is sent, with nothing written but the arm's
// folder.
func TestCacheStudyNoBlockHashes(t *testing.T) {
	trace := testenv.WriteMooncake(t, "flat.jsonl", []testenv.MooncakeRecord{
		{Timestamp: 0, InputLength: 64, OutputLength: 2}, {Timestamp: 10, InputLength: 64, OutputLength: 2}})
	var stderr bytes.Buffer
	out := t.TempDir()
	_, err := Run(context.Background(), Config{Run: runner.Config{Trace: trace, Out: out, Tokenizer: testenv.SampleTokenizer(),
		Stderr: &syncWriter{w: &stderr}, Stdout: &bytes.Buffer{}, SnapshotEvery: -1}})
	if err == nil || !strings.Contains(err.Error(), "unique arm: ") || !strings.Contains(err.Error(), "no block hashes in the window") {
		t.Fatalf("%v: want the unique arm's error saying the window has no block hashes", err)
	}
	if s := stderr.String(); strings.Contains(s, "simulator") {
		t.Errorf("the simulator started before the window was refused:\n%s", s)
	}
	if _, err := os.Stat(filepath.Join(out, Unique, "requests.parquet")); !os.IsNotExist(err) {
		t.Errorf("unique/requests.parquet: %v, want none", err)
	}
}
