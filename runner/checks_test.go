package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/checks"
	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/scheduler"
	"github.com/llm-replay/replay/sim"
)

// TestRunChecks: a single run probes its endpoint before the warmup at --checks basic, judges
// overload over its own rows (the simulator's 429s here carry no Retry-After), writes the
// checks to summary.json and report.html and prints them after the table; a failed check is
// no run error. --checks auto probes an endpoint but not the built-in simulator.
func TestRunChecks(t *testing.T) {
	bad := fastSim()
	bad.Faults = sim.Faults{RateLimitRate: 0.25}
	url := startSims(t, bad)[0]
	run := func(endpoint, level string) (*analysis.Summary, string, string) {
		out := t.TempDir()
		var stdout, stderr bytes.Buffer
		sum, err := Run(context.Background(), Config{Trace: testenv.PairedTrace(t, 30, 20), Out: out, Tokenizer: testenv.SampleTokenizer(),
			Client: client.Config{BaseURL: endpoint, Model: "replay-sim"}, Schedule: scheduler.Config{Speed: 4}, MaxErrorRate: 0.9, MaxLateness: -1, MinExact: anyLengths,
			ClientLimit: 1000, Warmup: 2, Checks: level, Stdout: &stdout, Stderr: &stderr, Sim: fastSim()})
		if err != nil {
			t.Fatalf("%s at %q: %v\n%s", endpoint, level, err, stderr.String())
		}
		return sum, out, stdout.String() + stderr.String()
	}
	sum, out, log := run(url, checks.LevelBasic)
	c := sum.Run.Checks
	if c == nil || c.Level != checks.LevelBasic || len(c.Results) != 5 || c.Results[4].Name != checks.OverloadCheck {
		t.Fatalf("run.checks %+v\n%s", c, log)
	}
	ov := c.Results[4]
	// Overload counts the measured run's answers only, not the warmup's or the probes'.
	if ov.Verdict() != checks.VerdictFail || ov.Pass+ov.Fail == 0 || !strings.Contains(ov.Seen, "of 30") {
		t.Errorf("overload %+v", ov)
	}
	if !strings.Contains(log, "behaviour checks (--checks basic: streaming, stop, max_tokens, sampling), before the warmup") ||
		!regexp.MustCompile(`\noverload +FAIL 0/\d+\n`).MatchString(log) || !strings.Contains(log, "429 without Retry-After") {
		t.Errorf("output:\n%s", log)
	}
	if i, j := strings.Index(log, "behaviour checks ("), strings.Index(log, "open-loop replay of"); i < 0 || j < i {
		t.Errorf("the probes were not sent before the replay (at %d, replay at %d)", i, j)
	}
	page, _ := os.ReadFile(filepath.Join(out, runfolder.Report))
	if !strings.Contains(string(page), `<h2 id="checks">Behaviour checks</h2>`) || !strings.Contains(string(page), "behaviour checks failed:") {
		t.Error("report.html shows no checks")
	}
	if sum, _, log := run(url, ChecksAuto); sum.Run.Checks == nil || sum.Run.Checks.Level != checks.LevelBasic {
		t.Errorf("auto against an endpoint: %+v\n%s", sum.Run.Checks, log)
	}
	if sum, _, log := run("", ChecksAuto); sum.Run.Checks != nil || strings.Contains(log, "behaviour checks (") {
		t.Errorf("auto against the built-in simulator: %+v\n%s", sum.Run.Checks, log)
	}
}
