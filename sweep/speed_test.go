package sweep

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/runner"
	"github.com/llm-replay/replay/sim"
)

// TestSweepFindsCapacity sweeps a trace against a simulator of known capacity and checks that
// the knee lands where the cost model says it must: at most 4 sequences decode at once, one
// token per 10 ms step, 20 output tokens a request, so the engine completes at most
// 4 / (20 x 10 ms) = 20 requests/s. The trace arrives at 5 req/s at 1x.
func TestSweepFindsCapacity(t *testing.T) {
	const baseRate, capacity = 5.0, 20.0
	p := filepath.Join(t.TempDir(), "even.csv")
	var b strings.Builder
	b.WriteString("TIMESTAMP,ContextTokens,GeneratedTokens\n")
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 40 {
		fmt.Fprintf(&b, "%s,50,20\n", start.Add(time.Duration(i)*200*time.Millisecond).Format("2006-01-02 15:04:05.0000000"))
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sc := sim.DefaultConfig()
	sc.MaxBatch, sc.StepBase, sc.StepPerSeq, sc.StepPerKVToken, sc.Jitter = 4, 10*time.Millisecond, 0, 0, 0
	sc.PrefillPerToken = time.Microsecond
	var stderr bytes.Buffer
	cfg := runner.Config{Trace: p, Out: t.TempDir(), Tokenizer: testenv.SampleTokenizer(), SLO: mustSLO(t, "e2e=600ms"), Sim: sc, Stderr: &stderr, CostPerHour: 2, GPUs: 1}
	res, err := Speed(context.Background(), cfg, []float64{1, 2, 3, 4, 6, 8}, 95)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var table bytes.Buffer
	WriteSpeedTable(&table, res)
	t.Logf("\n%s", table.String())
	if rate := res.Knee * baseRate; rate > capacity || rate < capacity/2 {
		t.Fatalf("knee %gx = %g req/s; the engine's capacity is %g req/s", res.Knee, rate, capacity)
	}
	for _, p := range res.Points {
		if p.Speed != res.Knee {
			continue
		}
		if want, err := CostAtKnee(2, 1, p.Summary.Throughput.OutputTokS); err != nil || res.KneeCost == nil || *res.KneeCost != *want {
			t.Errorf("cost at the knee %+v, want %+v (%v)", res.KneeCost, want, err)
		}
	}
	last := res.Points[len(res.Points)-1]
	if last.Holds || last.Speed*baseRate <= capacity*0.9 {
		t.Fatalf("the sweep stopped at %gx (%g req/s, holds %v): it must stop at the first speed past capacity", last.Speed, last.Speed*baseRate, last.Holds)
	}
	if _, err := os.Stat(filepath.Join(cfg.Out, File)); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(cfg.Out, PageFile))
	if err != nil {
		t.Fatal(err)
	}
	knee := fmt.Sprintf("knee %gx", res.Knee)
	if n := strings.Count(string(page), "<svg"); n != 4 || strings.Count(string(page), knee) != 4 || !strings.Contains(string(page), "target 95%") {
		t.Errorf("sweep.html: %d plots, %q marked on %d, want 4 plots with the knee and the target line", n, knee, strings.Count(string(page), knee))
	}
}
