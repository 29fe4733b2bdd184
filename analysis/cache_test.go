package analysis

import (
	"path/filepath"
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/runfolder"
)

// TestIdealCounter checks the ideal hit rate by hand: 16-token blocks; the second prompt repeats
// the first's two leading blocks (32 tokens) and diverges at its third; the third prompt shares
// the first block only after a different one, so nothing (a prefix cache reuses prefixes only);
// the fourth is the second again, whose 3 blocks cover a 40-token prompt, so 39 tokens, not 48
// (an engine computes at least the last token).
func TestIdealCounter(t *testing.T) {
	ic := NewIdealCounter()
	if ic.Result() != nil {
		t.Fatal("a result from no prompts")
	}
	ic.Add([]uint64{1, 2, 3}, 16, 48)
	ic.Add([]uint64{1, 2, 4}, 16, 40)
	ic.Add([]uint64{9, 1}, 16, 20)
	ic.Add([]uint64{1, 2, 4}, 16, 40)
	r := ic.Result()
	if r.Blocks != 11 || r.HitBlocks != 2+3 || r.PromptTokens != 148 || r.HitTokens != 32+39 || r.BlockSize != 16 {
		t.Fatalf("%+v", r)
	}
	exact(t, "block hit pct", r.BlockHitPct, 45.455) // 5/11
	exact(t, "hit pct", r.HitPct, 47.973)            // 71/148
	ic.Add([]uint64{7}, 512, 512)
	if r := ic.Result(); r.BlockSize != 0 {
		t.Errorf("mixed block sizes reported as %d", r.BlockSize)
	}
}

// TestCacheThreeWays puts the three hit rates in the summary and checks they survive
// `replay report` rebuilding it from the rows.
func TestCacheThreeWays(t *testing.T) {
	row := testenv.OKRow("a", 0, 100, 10)
	row.CachedTokens = 25
	q, h := 400.0, 120.0
	ic := NewIdealCounter()
	ic.Add([]uint64{1}, 16, 100)
	ic.Add([]uint64{1, 2}, 16, 100)
	info := RunInfo{ServerCache: &ServerCache{MetricsURL: "http://x/metrics", Scrapes: 3, QueriedTokens: &q, HitTokens: &h},
		IdealCache: ic.Result()}
	m := NewMetrics(Options{})
	m.Add(&row)
	s := m.Summary(info)
	c := s.Cache
	if c.HitPct == nil || *c.HitPct != 25 || c.ServerHitPct == nil || *c.ServerHitPct != 30 || c.IdealHitPct == nil || *c.IdealHitPct != 8 {
		t.Fatalf("cache %+v", c)
	}
	dir := t.TempDir()
	w, err := rowfile.NewWriter(filepath.Join(dir, runfolder.Requests))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(row); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := WriteSummary(dir, s); err != nil {
		t.Fatal(err)
	}
	lm, linfo, err := loadDir(t, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	again := lm.Summary(linfo).Cache
	if again.ServerHitPct == nil || *again.ServerHitPct != 30 || again.IdealHitPct == nil || *again.IdealHitPct != 8 || again.Server.Scrapes != 3 {
		t.Fatalf("after report: %+v", again)
	}

	// No counters scraped (an endpoint without /metrics): the figure is unknown, not zero.
	none := NewMetrics(Options{})
	none.Add(&row)
	s = none.Summary(RunInfo{ServerCache: &ServerCache{MetricsURL: "http://x/metrics", Failures: 4}})
	if s.Cache.ServerHitPct != nil || s.Cache.IdealHitPct != nil {
		t.Fatalf("cache %+v", s.Cache)
	}
}
