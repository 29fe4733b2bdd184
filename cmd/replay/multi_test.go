package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/runner"
	"github.com/llm-replay/replay/sim"
)

// multiCompare is what the test reads of compare.json.
type multiCompare struct {
	A, B      string
	Direction string
	Verdict   string
	Paired    []struct {
		Name       string
		N          int
		MedianDiff struct{ Delta, Lo, Hi float64 } `json:"median_diff_ms"`
		WilcoxonP  float64                         `json:"wilcoxon_p"`
		Verdict    string
	}
}

// pairedRun runs `replay run` against two `replay sim` processes started for it (so neither
// carries another run's cache), labelled base and other, the second with otherSim's flags, and
// returns compare.json, stdout and the run's folder.
func pairedRun(t *testing.T, bin, trace string, seed int, otherSim []string, flags ...string) (multiCompare, string, string) {
	t.Helper()
	base, cmdBase := startSimCmd(t, bin)
	other, cmdOther := startSimCmd(t, bin, otherSim...)
	defer stopProcess(t, cmdOther)
	defer stopProcess(t, cmdBase)
	out := t.TempDir()
	args := append([]string{"run", "--trace", trace, "--tokenizer", testenv.SampleTokenizer(),
		"--endpoint", "base=" + base, "--endpoint", "other=" + other, "--model", "replay-sim",
		"--speed", "2", "--seed", fmt.Sprint(seed), "--max-lateness", "0", "--out", out}, flags...)
	cmd := exec.Command(bin, args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if code := exitCode(cmd.Run()); code != 0 {
		t.Fatalf("replay run exited %d\n%s", code, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(out, runfolder.Compare))
	if err != nil {
		t.Fatal(err)
	}
	var c multiCompare
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c, stdout.String(), out
}

// TestRunMultiPaired is the first test: two simulators in their own processes, one
// with twice the default prefill time per token, replayed at 2x as a paired run of 300
// requests, give the verdict "B slower" with a TTFT interval above zero; every request id is
// in each endpoint's rows once, with the same prompt bytes. The same simulator twice is
// TestRunMultiSameSimulator.
func TestRunMultiPaired(t *testing.T) {
	bin := replayBin(t)
	const n = 300
	trace := testenv.PairedTrace(t, n, 16)
	slower := sim.DefaultConfig().PrefillPerToken * 2
	c, stdout, out := pairedRun(t, bin, trace, 1, []string{"--prefill-per-token", slower.String()}, "--keep-prompts")
	t.Logf("prefill x2: %s", c.Verdict)
	ttft := c.Paired[0]
	t.Logf("ttft: %s", ttft.Verdict)
	if c.A != "base" || c.B != "other" || c.Direction != "B slower" || !strings.HasPrefix(c.Verdict, "B slower: ttft median +") {
		t.Errorf("verdict %q (a %q, b %q)", c.Verdict, c.A, c.B)
	}
	if ttft.Name != "ttft" || ttft.N != n || !(ttft.MedianDiff.Lo > 0) {
		t.Errorf("ttft: n %d, median difference %+v: want an interval above zero", ttft.N, ttft.MedianDiff)
	}
	if !strings.Contains(stdout, "verdict: "+c.Verdict) || strings.Index(stdout, "== other: ") > strings.Index(stdout, "verdict: ") {
		t.Errorf("stdout: want both tables, then the verdict:\n%s", stdout)
	}
	prompts := map[string]string{}
	for _, label := range []string{"base", "other"} {
		for _, f := range []string{"summary.json", "report.html", runfolder.ServerMetrics} {
			if _, err := os.Stat(filepath.Join(out, label, f)); err != nil {
				t.Error(err)
			}
		}
		rows, err := rowfile.ReadAll(filepath.Join(out, label, "requests.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for _, r := range rows {
			seen[r.RequestID]++
			if p, ok := prompts[r.RequestID]; ok && p != r.Prompt {
				t.Errorf("request %s: other prompt bytes at %s", r.RequestID, label)
			}
			prompts[r.RequestID] = r.Prompt
		}
		for i := range n {
			if seen[fmt.Sprint(i)] != 1 {
				t.Errorf("%s: request %d has %d rows", label, i, seen[fmt.Sprint(i)])
			}
		}
		if len(seen) != n {
			t.Errorf("%s: %d request ids, want %d", label, len(seen), n)
		}
	}
	for id, p := range prompts {
		if p == "" {
			t.Fatalf("request %s: no prompt kept under --keep-prompts", id)
		}
	}
	if _, err := os.Stat(filepath.Join(out, runfolder.CompareReport)); err != nil {
		t.Error(err)
	}
}

// TestRunMultiSameSimulator is the A/A half: the same simulator twice, two fresh
// processes per seed, on TestRunMultiPaired's trace at 2x, gives "no significant difference"
// in at least 29 of 30 seeds. Two processes of one configuration are not one server: their
// step loops stand at different phases, so per request B - A leans one way by a few ms while
// the two TTFT distributions agree (analysis.TestPairedStepPhaseNoClaim), and the verdict is
// on the runs' quantiles. Three seeds by default (none may claim); REPLAY_AA=1 runs all 30
// (about 6 minutes; .ci/run does, on its own, after the suite).
func TestRunMultiSameSimulator(t *testing.T) {
	bin := replayBin(t)
	trace := testenv.PairedTrace(t, 300, 16)
	seeds, allowed := 3, 0
	if os.Getenv("REPLAY_AA") == "1" {
		seeds, allowed = 30, 1
	}
	claims := 0
	for seed := 1; seed <= seeds; seed++ {
		c, _, _ := pairedRun(t, bin, trace, seed, nil, "--checks", "none")
		t.Logf("seed %d: %s", seed, c.Verdict)
		if c.Direction != "no significant difference" {
			claims++
		}
	}
	t.Logf("same simulator twice: %d of %d seeds \"no significant difference\"", seeds-claims, seeds)
	if claims > allowed {
		t.Errorf("claimed a difference in %d of %d seeds (at most %d allowed)", claims, seeds, allowed)
	}
}

// TestMultiEndpointFlags: --endpoint, --model and --api-key-env repeated with labels make a
// paired run's endpoints; one value without a label is a single run, as before.
func TestMultiEndpointFlags(t *testing.T) {
	t.Setenv("KEY_ALL", "k-all")
	t.Setenv("KEY_NEW", "k-new")
	apply := func(f targetFlags, keyFile string) (runner.Config, error) {
		var cfg runner.Config
		err := f.apply(&cfg, keyFile)
		return cfg, err
	}
	// A single run keeps its values verbatim, '=' and all.
	cfg, err := apply(targetFlags{endpoints: []string{"http://h:1/v1?x=y"}, models: []string{"org/m=v2"}, keyEnvs: []string{"KEY_ALL"}}, "")
	if err != nil || cfg.Client.BaseURL != "http://h:1/v1?x=y" || cfg.Client.Model != "org/m=v2" || cfg.Client.APIKey != "k-all" || cfg.Endpoints != nil {
		t.Errorf("single: %v %+v", err, cfg)
	}
	// A single labelled endpoint is a single run too; its own label on the model is dropped.
	cfg, err = apply(targetFlags{endpoints: []string{"new=http://h:1"}, models: []string{"new=m"}}, "")
	if err != nil || cfg.Client.BaseURL != "http://h:1" || cfg.Client.Model != "m" || cfg.Endpoints != nil {
		t.Errorf("single labelled: %v %+v", err, cfg)
	}
	// Two endpoints: the unlabelled model and key apply to those without their own.
	cfg, err = apply(targetFlags{endpoints: []string{"old=http://h:1/v1", "new=http://h:2/v1"},
		models: []string{"m", "new=m2"}, keyEnvs: []string{"KEY_ALL", "new=KEY_NEW"}}, "")
	want := []runner.Endpoint{{Label: "old", URL: "http://h:1/v1", Model: "m", APIKey: "k-all"}, {Label: "new", URL: "http://h:2/v1", Model: "m2", APIKey: "k-new"}}
	if err != nil || fmt.Sprint(cfg.Endpoints) != fmt.Sprint(want) || cfg.Client.BaseURL != "" {
		t.Errorf("paired: %v\n%+v\nwant %+v", err, cfg.Endpoints, want)
	}
	// Endpoints without labels are named by their place.
	cfg, err = apply(targetFlags{endpoints: []string{"http://h:1", "http://h:2"}, models: []string{"b=m2", "m"}}, "")
	if err != nil || len(cfg.Endpoints) != 2 || cfg.Endpoints[0].Label != "a" || cfg.Endpoints[1].Label != "b" || cfg.Endpoints[1].Model != "m2" || cfg.Endpoints[0].Model != "m" {
		t.Errorf("unlabelled: %v %+v", err, cfg.Endpoints)
	}
	for _, c := range []struct {
		f       targetFlags
		keyFile string
		want    string
	}{
		{targetFlags{endpoints: []string{"x=http://h:1", "x=http://h:2"}, models: []string{"m"}}, "", `label "x" given twice`},
		{targetFlags{endpoints: []string{"a=http://h:1", "b=http://h:2"}, models: []string{"m", "n"}}, "", "--model without a label given twice"},
		{targetFlags{endpoints: []string{"a=http://h:1", "b=http://h:2"}, models: []string{"m", "c=n"}}, "", `no endpoint is labelled "c"`},
		{targetFlags{endpoints: []string{"a=http://h:1", "b=http://h:2"}, models: []string{"m"}, keyEnvs: []string{"b=NO_SUCH_KEY_VAR"}}, "", "endpoint b"},
		{targetFlags{endpoints: []string{"a="}}, "", "want [LABEL=]URL"},
		{targetFlags{endpoints: []string{"http://h:1"}, models: []string{"m", "n"}}, "", "--model given 2 times"},
		{targetFlags{endpoints: []string{"http://h:1"}, keyEnvs: []string{"KEY_ALL"}}, "key.txt", "not both"},
	} {
		if _, err := apply(c.f, c.keyFile); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.f, err, c.want)
		}
	}
}

// TestMultiRunHelp: --help shows the three flags as repeatable with a label.
func TestMultiRunHelp(t *testing.T) {
	_, _, stderr := runCLI(t, "run", "--help")
	for _, want := range []string{"--endpoint [LABEL=]URL", "--model [LABEL=]NAME", "--api-key-env [LABEL=]VAR", "DIR/compare.json"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}

// TestRunMultiExit: a paired run exits as its worst endpoint: one endpoint failing every
// request makes it exit 3, after every file of both endpoints and the comparison is written.
func TestRunMultiExit(t *testing.T) {
	bin := replayBin(t)
	base, other := startSim(t, bin), startSim(t, bin, "--fault-error-rate", "1")
	out := t.TempDir()
	cmd := exec.Command(bin, "run", "--trace", testenv.PairedTrace(t, 40, 20), "--speed", "4", "--tokenizer", testenv.SampleTokenizer(),
		"--endpoint", base, "--endpoint", other, "--model", "replay-sim", "--max-lateness", "0", "--out", out)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if code := exitCode(cmd.Run()); code != 3 {
		t.Fatalf("exit %d, want 3 (endpoint b failed every request)\n%s", code, stderr.String())
	}
	for _, f := range []string{"a/summary.json", "b/summary.json", "a/report.html", "b/report.html", runfolder.Compare, runfolder.CompareReport} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(out, runfolder.Compare))
	var c multiCompare
	if err := json.Unmarshal(b, &c); err != nil || c.Verdict != "no significant difference: no request succeeded at both endpoints" || c.Paired[0].N != 0 {
		t.Errorf("compare.json: %v %+v", err, c)
	}
	if !strings.Contains(stderr.String(), "endpoint b: failed: ") {
		t.Errorf("stderr does not name the failed endpoint:\n%s", stderr.String())
	}
	t.Log(c.Verdict)
}

// TestRunMultiRequire: --require on a paired run judges every endpoint and each B against A,
// after every file is written: a delta term B fails and a checks term B fails (its 429s carry
// no Retry-After) make it exit 4, listing each failing term under its endpoint; the same
// terms loosened exit 0; a failed run keeps its own exit code; --checks takes only its levels.
func TestRunMultiRequire(t *testing.T) {
	bin := replayBin(t)
	slower := sim.DefaultConfig().PrefillPerToken * 4
	base, other := startSim(t, bin), startSim(t, bin, "--prefill-per-token", slower.String(), "--fault-429-rate", "0.2")
	trace := testenv.PairedTrace(t, 40, 20)
	run := func(flags ...string) (int, string, string) {
		out := t.TempDir()
		cmd := exec.Command(bin, append([]string{"run", "--trace", trace, "--speed", "4", "--tokenizer", testenv.SampleTokenizer(),
			"--endpoint", base, "--endpoint", other, "--model", "replay-sim", "--max-lateness", "0", "--out", out}, flags...)...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		return exitCode(cmd.Run()), stderr.String(), out
	}
	code, stderr, out := run("--require", "ttft.p95<=1m,delta.ttft.p50<=+1%,checks")
	if code != 4 {
		t.Fatalf("exit %d, want 4\n%s", code, stderr)
	}
	for _, want := range []string{"requirements (--require):", "a:\n  pass  ttft.p95", "b (delta terms against a):",
		"FAIL  delta.ttft.p50", "FAIL  checks", "failed: ", "--require limits failed: 2 of 5"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q\n%s", want, stderr)
		}
	}
	for _, f := range []string{"a/summary.json", "b/summary.json", runfolder.Compare, runfolder.CompareReport} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	if code, stderr, _ := run("--require", "ttft.p95<=1m,delta.ttft.p50<=+100000%", "--checks", "none"); code != 0 {
		t.Errorf("loosened: exit %d, want 0\n%s", code, stderr)
	}
	if code, stderr, _ := run("--require", "delta.ttft.p50<=+1%", "--max-error-rate", "0.05"); code != 3 {
		t.Errorf("b failing a fifth of requests: exit %d, want 3 (its own code before --require's)\n%s", code, stderr)
	}
	if code, stderr, _ := run("--checks", "most"); code != 1 || !strings.Contains(stderr, `--checks "most": want auto, none, basic, all`) {
		t.Errorf("--checks most: exit %d\n%s", code, stderr)
	}
}

// TestRunRequireChecksSingle: a single run's failed behaviour check is reported and exits 0,
// unless --require checks gates it (exit 4, the term listed); summary.json holds the checks.
func TestRunRequireChecksSingle(t *testing.T) {
	bin := replayBin(t)
	url := startSim(t, bin, "--fault-429-rate", "0.3")
	trace := testenv.PairedTrace(t, 30, 20)
	run := func(flags ...string) (int, string, string) {
		out := t.TempDir()
		cmd := exec.Command(bin, append([]string{"run", "--trace", trace, "--speed", "4", "--tokenizer", testenv.SampleTokenizer(),
			"--endpoint", url, "--model", "replay-sim", "--max-lateness", "0", "--max-error-rate", "0.9", "--out", out}, flags...)...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		return exitCode(cmd.Run()), stdout.String() + stderr.String(), out
	}
	code, log, out := run()
	if code != 0 || !strings.Contains(log, "429 without Retry-After") {
		t.Fatalf("without --require: exit %d, want 0 with the failed overload check shown\n%s", code, log)
	}
	var s struct {
		Run struct {
			Checks struct {
				Level  string
				Failed []string
			}
		}
	}
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(b, &s); err != nil || s.Run.Checks.Level != "basic" || !slices.Contains(s.Run.Checks.Failed, "overload") {
		t.Errorf("summary.json run.checks: %v %+v", err, s.Run.Checks)
	}
	if code, log, _ := run("--require", "checks.streaming,checks"); code != 4 || !strings.Contains(log, "pass  checks.streaming") ||
		!strings.Contains(log, "FAIL  checks ") {
		t.Errorf("--require checks: exit %d, want 4\n%s", code, log)
	}
}
