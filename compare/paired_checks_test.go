package compare

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/checks"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/report"
	"github.com/llm-replay/replay/require"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/runload"
	"github.com/llm-replay/replay/runner"
	"github.com/llm-replay/replay/scheduler"
	"github.com/llm-replay/replay/sim"
)

// pairedChecksRun is a paired run with behaviour checks and requirements against two
// in-process simulators; it returns the run's error and its output folder.
func pairedChecksRun(t *testing.T, a, b sim.Config, level string, expr string) (out, log string, err error) {
	t.Helper()
	reqs, err := require.Parse(expr)
	if err != nil {
		t.Fatal(err)
	}
	urls := startSims(t, a, b)
	out = t.TempDir()
	var stdout, stderr bytes.Buffer
	_, err = Paired(context.Background(), runner.Config{
		Trace: testenv.PairedTrace(t, 60, 20), Out: out, Tokenizer: testenv.SampleTokenizer(),
		Endpoints: []runner.Endpoint{{Label: "a", URL: urls[0], Model: "replay-sim"}, {Label: "b", URL: urls[1], Model: "replay-sim"}},
		Schedule:  scheduler.Config{Speed: 4}, MaxErrorRate: 0.5, MaxLateness: -1, ClientLimit: 1000,
		Checks: level, Stdout: &stdout, Stderr: &stderr,
	}, reqs)
	return out, stdout.String() + stderr.String(), err
}

// TestRunMultiChecksAndRequire: the behaviour checks probe each endpoint before the warmup,
// land in each endpoint's summary.json and side by side in compare.json, compare.html and on
// stdout; B answering 429 without Retry-After to a share of requests fails its overload check
// (over the run's own rows) and so `--require checks`, while A passes; --require judges A on
// its own terms and B on its own and its deltas against A, and the run's error is
// ErrRequirements only when a term failed.
func TestRunMultiChecksAndRequire(t *testing.T) {
	bad := fastSim()
	bad.Faults = sim.Faults{RateLimitRate: 0.2} // no RetryAfter: 429s without the header
	out, log, err := pairedChecksRun(t, fastSim(), bad, checks.LevelBasic, "ttft.p95<=1m,delta.ttft.p50<=+10000%,checks")
	if !errors.Is(err, ErrRequirements) {
		t.Fatalf("err %v, want ErrRequirements\n%s", err, log)
	}
	c := readCompare(t, out)
	if len(c.Checks) != 2 || c.Checks[0].Label != "a" || c.Checks[1].Label != "b" {
		t.Fatalf("compare.json checks: %+v", c.Checks)
	}
	if f := c.Checks[0].Failed; len(f) != 0 {
		t.Errorf("a failed %v\n%s", f, log)
	}
	if f := c.Checks[1].Failed; !slices.Contains(f, checks.OverloadCheck) {
		t.Errorf("b failed %v, want overload among them\n%s", f, log)
	}
	for i, label := range []string{"a", "b"} {
		s, err := analysis.ReadSummary(filepath.Join(out, label, runfolder.Summary))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, r := range s.Run.Checks.Results {
			names = append(names, r.Name)
		}
		want := []string{checks.Streaming, checks.Stop, checks.MaxTokens, checks.Sampling, checks.OverloadCheck}
		if !slices.Equal(names, want) || s.Run.Checks.Level != checks.LevelBasic {
			t.Errorf("%s: summary.json run.checks %v at %q, want %v at basic", label, names, s.Run.Checks.Level, want)
		}
		if !slices.Equal(s.Run.Checks.Failed, c.Checks[i].Failed) {
			t.Errorf("%s: summary.json failed %v, compare.json %v", label, s.Run.Checks.Failed, c.Checks[i].Failed)
		}
	}
	// `replay report` rebuilds the summary from the rows and keeps the checks.
	m, info, err := runload.LoadDir(filepath.Join(out, "b"), analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s, err := report.WriteRunFiles(filepath.Join(out, "b"), m, info); err != nil || s.Run.Checks == nil ||
		!slices.Equal(s.Run.Checks.Failed, c.Checks[1].Failed) {
		t.Errorf("replay report lost the checks: %v %+v", err, s.Run.Checks)
	}
	// The overload check counts the run's answers: B's 429s are its rows' (about a fifth).
	ov := c.Checks[1].Results[len(c.Checks[1].Results)-1]
	if ov.Name != checks.OverloadCheck || ov.Fail < 3 || ov.Pass != 0 || !strings.Contains(ov.Seen, "429×") {
		t.Errorf("b overload: %+v", ov)
	}
	// Requirements: A without the delta term, B with it.
	if len(c.Requirements) != 2 {
		t.Fatalf("requirements: %+v", c.Requirements)
	}
	terms := func(er endpointRequirements) (ts []string, failed []string) {
		for _, o := range er.Outcomes {
			ts = append(ts, o.Term)
			if !o.Pass {
				failed = append(failed, o.Term)
			}
		}
		return ts, failed
	}
	if ts, failed := terms(c.Requirements[0]); !slices.Equal(ts, []string{"ttft.p95", "checks"}) || len(failed) != 0 || c.Requirements[0].Against != "" {
		t.Errorf("a: terms %v failed %v (%+v)", ts, failed, c.Requirements[0])
	}
	if ts, failed := terms(c.Requirements[1]); !slices.Equal(ts, []string{"ttft.p95", "delta.ttft.p50", "checks"}) ||
		!slices.Equal(failed, []string{"checks"}) || c.Requirements[1].Against != "a" {
		t.Errorf("b: terms %v failed %v (%+v)", ts, failed, c.Requirements[1])
	}
	for _, want := range []string{"behaviour checks, side by side:", "b overload: statuses: 200×", "429 without Retry-After",
		"requirements (--require):", "b (delta terms against a):", "FAIL  checks"} {
		if !strings.Contains(log, want) {
			t.Errorf("output lacks %q\n%s", want, log)
		}
	}
	page, err := os.ReadFile(filepath.Join(out, runfolder.CompareReport))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<h2>Limits (--require)</h2>`, `<td class="fail"`, `<table class="checks">`,
		`id="delta-ttft-b"><svg`, `id="delta-e2e-b"><svg`, "TTFT: B - A per request: median"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("compare.html lacks %q", want)
		}
	}
	// The first screen comes before the tests' details.
	if i, j := strings.Index(string(page), `class="checks"`), strings.Index(string(page), "per request, B - A</h2>"); i < 0 || j < i {
		t.Errorf("compare.html: the checks (at %d) do not come before the tests (at %d)", i, j)
	}
}

// TestRunMultiRequireHolds: when every term holds the run's error is nil, checks none sends no
// probe and leaves them out of summary.json and compare.json, and `checks` then fails
// (a gate that cannot see the behaviour), as a run that failed keeps its own error.
func TestRunMultiRequireHolds(t *testing.T) {
	out, log, err := pairedChecksRun(t, fastSim(), fastSim(), checks.LevelNone, "ttft.p95<=1m,errors<=0")
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	c := readCompare(t, out)
	if c.Checks != nil || strings.Contains(log, "behaviour checks (") {
		t.Errorf("--checks none: compare.json checks %+v\n%s", c.Checks, log)
	}
	if len(c.Requirements) != 2 || !c.Requirements[1].Outcomes[0].Pass {
		t.Errorf("requirements %+v", c.Requirements)
	}
	_, log, err = pairedChecksRun(t, fastSim(), fastSim(), checks.LevelNone, "checks")
	if !errors.Is(err, ErrRequirements) || !strings.Contains(log, "no behaviour checks in the run") {
		t.Errorf("checks without probes: %v\n%s", err, log)
	}
}

// TestLimitAndSLOGrids: compare.html's limits table has a row per term and a column per
// endpoint, a delta term not applicable on A; without --require the --slo table gives each
// endpoint's share meeting each limit, and no SLO gives no table.
func TestLimitAndSLOGrids(t *testing.T) {
	ers := []endpointRequirements{
		{Label: "a", Outcomes: []require.Outcome{{Term: "ttft.p95", Limit: "<=1s", Value: "0.2s", Pass: true}}},
		{Label: "b", Against: "a", Outcomes: []require.Outcome{{Term: "ttft.p95", Limit: "<=1s", Value: "1.5s"},
			{Term: "delta.ttft.p95", Limit: "<=+10%", Value: "+650%"}}},
	}
	rows := limitGrid([]string{"a", "b"}, ers)
	if len(rows) != 2 || rows[0].Term != "ttft.p95" || !rows[0].Cells[0].Pass || rows[0].Cells[1].Pass || rows[0].Cells[0].NA {
		t.Fatalf("rows %+v", rows)
	}
	if d := rows[1]; d.Term != "delta.ttft.p95" || !d.Cells[0].NA || d.Cells[1].NA || d.Cells[1].Value != "+650%" {
		t.Errorf("delta row %+v", d)
	}
	g := func(ttft, all float64) runner.EndpointResult {
		return runner.EndpointResult{Summary: &analysis.Summary{Goodput: &analysis.Goodput{LimitsMS: map[string]float64{"ttft": 500}, MetPct: map[string]float64{"ttft": ttft}, AllPct: all}}}
	}
	slo := sloGrid([]runner.EndpointResult{g(99, 98.5), g(40, 39)})
	if len(slo) != 2 || slo[0].Name != "ttft" || slo[0].Limit != "500 ms" || strings.Join(slo[0].Met, " ") != "99.0% 40.0%" ||
		slo[1].Name != "all of them" || strings.Join(slo[1].Met, " ") != "98.5% 39.0%" {
		t.Errorf("slo %+v", slo)
	}
	if sloGrid([]runner.EndpointResult{{Summary: &analysis.Summary{}}, {Summary: &analysis.Summary{}}}) != nil {
		t.Error("an SLO table without an SLO")
	}
}
