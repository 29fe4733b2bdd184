package compare

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/runner"
	"github.com/llm-replay/replay/scheduler"
	"github.com/llm-replay/replay/sim"
	"github.com/llm-replay/replay/synth/tokenizer"
)

// startSims starts one in-process simulator per config and returns their URLs. Each counts
// prompts with the sample tokenizer the runs here build them with (as replay sim does by
// default), so the runs see the logged lengths and are judged on what the tests compare.
func startSims(t *testing.T, cfgs ...sim.Config) []string {
	t.Helper()
	tok, err := tokenizer.Load(testenv.SampleTokenizer())
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, sc := range cfgs {
		if err := runner.ServerCounting(testenv.SampleTokenizer(), tok, &sc); err != nil {
			t.Fatal(err)
		}
		u, stop, err := sim.Listen(context.Background(), "127.0.0.1:0", sc)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = stop() })
		urls = append(urls, u)
	}
	return urls
}

// fastSim is a simulator whose decode steps are long enough for the streaming probe to see a
// stream (3 ms a token) and short enough for a quick run.
func fastSim() sim.Config {
	c := sim.DefaultConfig()
	c.StepBase, c.StepPerSeq, c.StepPerKVToken = 3*time.Millisecond, 0, 0
	return c
}

// readCompare reads a paired run's compare.json.
func readCompare(t *testing.T, dir string) compareFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, runfolder.Compare))
	if err != nil {
		t.Fatal(err)
	}
	var c compareFile
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("%s: %v", runfolder.Compare, err)
	}
	return c
}

// TestMultiRun is a paired run against two in-process simulators, the second with twice the
// default prefill time per token: each label's folder holds a single run's files, every
// request id is in each label's rows exactly once with the same prompt, the client limit is
// shared between the endpoints, and the paired verdict finds B slower on TTFT with an
// interval above zero, in compare.json, compare.html and on stdout after both tables.
func TestMultiRun(t *testing.T) {
	base := sim.DefaultConfig()
	slow := base
	slow.PrefillPerToken *= 2
	urls := startSims(t, base, slow)
	out := t.TempDir()
	const n = 150
	var stdout, stderr bytes.Buffer
	res, err := Paired(context.Background(), runner.Config{
		Trace: testenv.PairedTrace(t, n, 10), Out: out, Tokenizer: testenv.SampleTokenizer(),
		Endpoints: []runner.Endpoint{{Label: "base", URL: urls[0], Model: "replay-sim"}, {Label: "slow", URL: urls[1], Model: "replay-sim"}},
		Schedule:  scheduler.Config{Speed: 2}, KeepPrompts: true, MaxErrorRate: 0.1,
		// Lateness is not judged: other test binaries share the cores. Both servers are in
		// this process, so each connection holds two descriptors: the limit is given.
		MaxLateness: -1, ClientLimit: 1000, Stdout: &stdout, Stderr: &stderr,
	}, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if sum := res.Summary(); sum.Requests.OK != n || sum.Run.Endpoint != urls[0] {
		t.Errorf("A's summary: %+v, endpoint %q", res.Summary().Requests, res.Summary().Run.Endpoint)
	}
	prompts := map[string]string{}
	for _, label := range []string{"base", "slow"} {
		dir := filepath.Join(out, label)
		for _, f := range []string{"requests.parquet", "summary.json", "report.html"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("%s: %v", label, err)
			}
		}
		if _, err := os.Stat(rowfile.JournalPath(filepath.Join(dir, "requests.parquet"))); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: the journal is still there after a clean close (%v)", label, err)
		}
		rows, err := rowfile.ReadAll(filepath.Join(dir, "requests.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for _, r := range rows {
			seen[r.RequestID]++
			switch p, ok := prompts[r.RequestID]; {
			case r.Prompt == "":
				t.Fatalf("%s: request %s kept no prompt", label, r.RequestID)
			case ok && p != r.Prompt:
				t.Errorf("request %s: %s got other prompt bytes than base", r.RequestID, label)
			case !ok:
				prompts[r.RequestID] = r.Prompt
			}
		}
		for i := range n {
			if id := fmt.Sprint(i); seen[id] != 1 {
				t.Errorf("%s: request %s has %d rows", label, id, seen[id])
			}
		}
		if len(seen) != n {
			t.Errorf("%s: %d request ids, want %d", label, len(seen), n)
		}
		var s analysis.Summary
		b, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		if s.Client.Limit != 500 || s.Requests.OK != n {
			t.Errorf("%s: client limit %d (want 1000 / 2 endpoints), requests %+v", label, s.Client.Limit, s.Requests)
		}
	}

	c := readCompare(t, out)
	ttft := c.Paired[0]
	t.Logf("verdict: %s", c.Verdict)
	t.Logf("ttft: %s", ttft.Verdict)
	if c.A != "base" || c.B != "slow" || c.Direction != analysis.PairedSlower || !strings.HasPrefix(c.Verdict, "B slower: ttft median +") {
		t.Errorf("compare.json: a %q b %q direction %q verdict %q", c.A, c.B, c.Direction, c.Verdict)
	}
	if ttft.Name != "ttft" || ttft.N != n || !(ttft.MedianDiff.Lo > 0) || ttft.Confidence != PairedConfidence {
		t.Errorf("ttft test: %+v", ttft)
	}
	if c.Unpaired == nil || c.Pairs != nil {
		t.Errorf("unpaired %+v, pairs %d", c.Unpaired, len(c.Pairs))
	}
	html, err := os.ReadFile(filepath.Join(out, runfolder.CompareReport))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"B slower: ttft median", `href="base/report.html"`, `href="slow/report.html"`, `href="unpaired-slow.html"`, "Wilcoxon p"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("compare.html lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "unpaired-slow.html")); err != nil {
		t.Error(err)
	}
	so := stdout.String()
	iTables, iVerdict := strings.LastIndex(so, "== slow: "), strings.Index(so, "verdict: B slower: ttft median +")
	if iTables < 0 || iVerdict < iTables || !strings.Contains(so, "== base: ") {
		t.Errorf("stdout: want both tables, then the verdict:\n%s", so)
	}
}

// TestMultiPairedVerdict: a figure is claimed when its test finds a direction and its median
// interval clears the margin (1% of A's median, at least 1 ms for TTFT and e2e); the verdict
// names B slower when a figure is and none is faster, mixed when they disagree, and no
// difference otherwise, each figure with its interval.
func TestMultiPairedVerdict(t *testing.T) {
	test := func(name, dir string, medianA, lo, hi float64) analysis.PairedTest {
		return analysis.PairedTest{Name: name, N: 300, MedianA: medianA, Confidence: PairedConfidence, WilcoxonP: 1e-9, Direction: dir,
			MedianDiff: analysis.Interval{Delta: (lo + hi) / 2, Lo: lo, Hi: hi}, Verdict: dir + ": median " + name}
	}
	same := test("tpot", analysis.PairedSame, 15, -0.1, 0.1)
	for _, c := range []struct {
		tests     []analysis.PairedTest
		dir, line string
	}{
		{[]analysis.PairedTest{test("ttft", analysis.PairedSlower, 300, 30, 50), same}, analysis.PairedSlower,
			"B slower: ttft median +40.0 ms [99% CI +30.0, +50.0], p = 1e-09, n = 300"},
		{[]analysis.PairedTest{test("ttft", analysis.PairedSlower, 300, 30, 50), test("tpot", analysis.PairedFaster, 15, -2, -1)}, DirectionMixed,
			"mixed: B slower on ttft median +40.0 ms [99% CI +30.0, +50.0], p = 1e-09, n = 300; faster on tpot median -1.50 ms [99% CI -2.00, -1.00], p = 1e-09, n = 300"},
		{[]analysis.PairedTest{same}, analysis.PairedSame, "no significant difference: tpot median +0.00 ms [99% CI -0.10, +0.10], p = 1e-09, n = 300, margin ±0.15 ms"},
		// Found by the test, but inside the 1 ms floor: no claim.
		{[]analysis.PairedTest{test("ttft", analysis.PairedFaster, 31, -0.9, -0.5)}, analysis.PairedSame,
			"no significant difference: ttft median -0.70 ms [99% CI -0.90, -0.50], p = 1e-09, n = 300, margin ±1.00 ms"},
		// Inside 1% of a 2 s median.
		{[]analysis.PairedTest{test("e2e", analysis.PairedSlower, 2000, 5, 15)}, analysis.PairedSame, "no significant difference: e2e median +10.0 ms"},
		// Just beyond it.
		{[]analysis.PairedTest{test("e2e", analysis.PairedSlower, 2000, 21, 30)}, analysis.PairedSlower, "B slower: e2e median +25.5 ms"},
	} {
		figs := figures(c.tests)
		dir, line := pairedVerdict(figs)
		if dir != c.dir || !strings.HasPrefix(line, c.line) {
			t.Errorf("got %q %q\nwant %q %q", dir, line, c.dir, c.line)
		}
		for _, f := range figs {
			l := figureLine(f)
			if !strings.HasPrefix(l, f.Claim+": median "+f.Name) || (f.Claim != f.Direction) != strings.Contains(l, "the test alone says "+f.Direction) {
				t.Errorf("figure line %q", l)
			}
		}
	}
}

// TestMultiThreeEndpoints: with three endpoints A is compared with each other one; compare.json
// holds the first pair at its top and both under pairs, each with its unpaired page.
func TestMultiThreeEndpoints(t *testing.T) {
	urls := startSims(t, sim.DefaultConfig(), sim.DefaultConfig(), sim.DefaultConfig())
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	_, err := Paired(context.Background(), runner.Config{
		Trace: testenv.PairedTrace(t, 30, 20), Out: out, Tokenizer: testenv.SampleTokenizer(),
		Endpoints: []runner.Endpoint{{Label: "a", URL: urls[0], Model: "replay-sim"}, {Label: "b", URL: urls[1], Model: "replay-sim"},
			{Label: "c", URL: urls[2], Model: "replay-sim"}},
		Schedule: scheduler.Config{Speed: 4}, MaxLateness: -1, ClientLimit: 900, MetricsURL: "none", Stdout: &stdout, Stderr: &stderr,
	}, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	c := readCompare(t, out)
	if c.A != "a" || c.B != "b" || len(c.Pairs) != 2 || c.Pairs[1].A != "a" || c.Pairs[1].B != "c" {
		t.Fatalf("compare.json: top %s/%s, pairs %+v", c.A, c.B, c.Pairs)
	}
	for _, f := range []string{"a/summary.json", "b/summary.json", "c/summary.json", "unpaired-b.html", "unpaired-c.html", runfolder.CompareReport} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	if strings.Count(stdout.String(), "paired: A = a, B = ") != 2 || !strings.Contains(stderr.String(), "at most 300 are in flight") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
}
