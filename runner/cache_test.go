package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/llm-replay/replay/gen"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/prefixcache"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/scheduler"
	"github.com/llm-replay/replay/sim"
)

// TestMooncakeHitRateMatchesIdeal replays a generated agent workload in the Mooncake shape
// (512-token block hashes, written by gen and read back through ingest)
// against the simulator over loopback HTTP and sets the three hit rates side by side: measured
// from usage.cached_tokens, measured from the simulator's Prometheus counters (scraped during
// the run) and the ideal of an infinite prefix cache over the trace's hashes, which this test
// also computes straight from prefixcache as a cross-check of the summary's figure.
//
// The simulator is given a KV cache that holds the whole workload (2^20 16-token blocks, 16 M
// tokens) and prefill fast enough that a shared prefix is computed before the next request
// needing it arrives (a request arriving while the prompt it shares blocks with is still being
// prefilled finds them not yet cached). With a small cache the running prompts would evict
// what finished ones cached; that is the cache's capacity, which this test is not about.
func TestMooncakeHitRateMatchesIdeal(t *testing.T) {
	const limit, speed = 300, 10
	trace := filepath.Join(t.TempDir(), "agent.jsonl")
	gc := gen.Default()
	gc.Shape = "agent"
	if err := writeGen(trace, gc); err != nil {
		t.Fatal(err)
	}
	sc := roomySim(5 * time.Millisecond)
	var stderr bytes.Buffer
	cfg := Config{
		Trace: trace, Out: t.TempDir(), Tokenizer: testenv.SampleTokenizer(), Limit: limit,
		Schedule: scheduler.Config{Speed: speed}, MetricsInterval: 200 * time.Millisecond,
		Sim: sc, Stderr: &stderr, Stdout: &bytes.Buffer{},
	}
	start := time.Now()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("stderr:\n%s", stderr.String())
		}
	})
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	c := sum.Cache
	if sum.Requests.OK != limit || c.HitPct == nil || c.ServerHitPct == nil || c.IdealHitPct == nil || c.Ideal.BlockSize != 512 {
		t.Fatalf("requests %+v, cache %+v\n%s", sum.Requests, c, stderr.String())
	}
	t.Logf("%d Mooncake requests at %gx in %.1f s: hit rate from usage.cached_tokens %.2f%%, from /metrics %.2f%% (%d scrapes), ideal %.2f%% (block hit rate %.2f%%)",
		limit, float64(speed), time.Since(start).Seconds(), *c.HitPct, *c.ServerHitPct, c.Server.Scrapes, *c.IdealHitPct, c.Ideal.BlockHitPct)

	// The summary's ideal is prefixcache's infinite-capacity count over the same records, each
	// cut to the blocks its prompt holds: the tokenizer's BOS is one of input_length's tokens,
	// so a row of 512k+1 tokens holds k blocks, not the k+1 hashes it lists.
	rd, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var hashes [][]uint64
	for i, line := range bytes.Split(bytes.TrimSpace(rd), []byte("\n"))[:limit] {
		var r struct {
			In     int      `json:"input_length"`
			Hashes []uint64 `json:"hash_ids"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("%s:%d: %v", trace, i+1, err)
		}
		hashes = append(hashes, r.Hashes[:min(len(r.Hashes), (r.In-1+511)/512)])
	}
	direct := prefixcache.HitRate(hashes, 0)
	if direct.Hits != c.Ideal.HitBlocks || direct.Blocks != c.Ideal.Blocks {
		t.Fatalf("prefixcache finds %d of %d blocks hit, the summary's ideal %d of %d", direct.Hits, direct.Blocks, c.Ideal.HitBlocks, c.Ideal.Blocks)
	}
	if *c.IdealHitPct < 3 {
		t.Fatalf("ideal hit rate %.2f%%: the slice shares too little for the comparison to mean anything", *c.IdealHitPct)
	}

	// The simulator counts in /metrics exactly what it reports in usage, so the scraped
	// increases must equal the sums of the rows.
	if *c.Server.HitTokens != float64(c.CachedTokens) || *c.Server.QueriedTokens != float64(c.PromptTokens) {
		t.Fatalf("/metrics counted %v hit of %v queried tokens; usage says %d cached of %d", *c.Server.HitTokens, *c.Server.QueriedTokens, c.CachedTokens, c.PromptTokens)
	}
	for name, got := range map[string]float64{"usage": *c.HitPct, "/metrics": *c.ServerHitPct} {
		if d := math.Abs(got - *c.IdealHitPct); d > 1 {
			t.Errorf("hit rate from %s %.2f%% is %.2f points from the ideal %.2f%%", name, got, d, *c.IdealHitPct)
		}
	}
	if _, err := os.Stat(filepath.Join(cfg.Out, runfolder.ServerMetrics)); err != nil {
		t.Error(err)
	}
}

// writeGen writes the generated trace cfg to path as Mooncake JSONL.
func writeGen(path string, cfg gen.Config) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := gen.WriteJSONL(f, cfg); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// roomySim is a simulator whose KV cache holds a whole test workload (2^20 16-token blocks)
// and whose prefill is fast and steps short (step each), so a request sharing a prefix with an
// earlier one finds it cached and computed: the cache's capacity and timing are not what these
// tests are about.
func roomySim(step time.Duration) sim.Config {
	sc := sim.DefaultConfig()
	sc.NumBlocks = 1 << 20
	sc.TokenBudget = 1 << 16
	sc.PrefillPerToken = time.Microsecond / 2
	sc.StepBase, sc.StepPerKVToken = step, 0 // decode as fast as the cache is big
	return sc
}
