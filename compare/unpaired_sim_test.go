package compare

import (
	"bytes"
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/runload"
	"github.com/llm-replay/replay/runner"
	"github.com/llm-replay/replay/scheduler"
	"github.com/llm-replay/replay/sim"
)

// TestCompareSimulatorRuns is `replay compare` on real runs: the default workload replayed
// against two in-process simulators over loopback HTTP, loaded back from their directories.
// Against a simulator with a slower cost model (prefill and decode steps twice as long) run B
// is named the slower with intervals that exclude zero; against the same cost model no
// difference is claimed. Each pair runs at the same time, so both see the same machine.
func TestCompareSimulatorRuns(t *testing.T) {
	base := sim.DefaultConfig()
	base.StepBase = 5 * time.Millisecond // shorter answers keep the test short
	slow := base
	slow.PrefillPerToken *= 2
	slow.StepBase *= 2
	pair := func(t *testing.T, a, b sim.Config) *Comparison {
		dirs := [2]string{filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")}
		var errs [2]error
		var logs [2]bytes.Buffer
		var wg sync.WaitGroup
		for i, sc := range []sim.Config{a, b} {
			wg.Go(func() {
				_, errs[i] = runner.Run(context.Background(), runner.Config{
					Out: dirs[i], Limit: 150, Schedule: scheduler.Config{Speed: 8},
					MetricsURL: "none", Sim: sc, Stderr: &logs[i], Stdout: &bytes.Buffer{},
				})
			})
		}
		wg.Wait()
		var ms [2]*analysis.Metrics
		var sums [2]*analysis.Summary
		for i := range dirs {
			if errs[i] != nil {
				t.Fatalf("run %d: %v\n%s", i, errs[i], logs[i].String())
			}
			m, info, err := runload.LoadDir(dirs[i], analysis.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ms[i], sums[i] = m, m.Summary(info)
			if sums[i].Requests.OK != 150 {
				t.Fatalf("run %d: %+v", i, sums[i].Requests)
			}
		}
		return Distributions(ms[0], ms[1], sums[0], sums[1], Options{LabelA: "a", LabelB: "b"})
	}

	start := time.Now()
	c := pair(t, base, slow)
	t.Logf("default vs slower cost model: %s", c.Verdict)
	if c.Slower != "B" {
		t.Errorf("verdict %q: want B named the slower", c.Verdict)
	}
	for _, test := range c.Tests {
		if !test.Interval.Excludes0() || test.Interval.Lo <= 0 {
			t.Errorf("%s: interval %+v should lie above zero", test.Name, test.Interval)
		}
	}

	c = pair(t, base, base)
	t.Logf("same cost model twice: %s", c.Verdict)
	if c.Slower != "" {
		t.Errorf("verdict %q: two runs of the same configuration claimed a difference", c.Verdict)
	}
	t.Logf("both pairs in %.1f s", time.Since(start).Seconds())
}
