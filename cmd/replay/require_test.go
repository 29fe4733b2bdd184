package main

import (
	"os/exec"
	"strings"
	"testing"
)

// --require gates a run after writing everything: exit 4 with every term listed when one
// fails, 0 when all hold; the same on a stored run through replay report; a bad term exits 1
// naming it. replay compare of two runs of one trace adds the paired tests.
func TestRequireGates(t *testing.T) {
	bin := replayBin(t)
	trace := writeRateTrace(t, 100, 100, 4)
	out := t.TempDir()
	cmd := exec.Command(bin, "run", "--trace", trace, "--sim-fault-error-rate", "0.2", "--max-error-rate", "1",
		"--max-lateness", "0", "--require", "errors<=1%,ttft.p99<=10m", "--out", out)
	b, err := cmd.CombinedOutput()
	if code := exitCode(err); code != 4 || !strings.Contains(string(b), "FAIL") || !strings.Contains(string(b), "errors") || !strings.Contains(string(b), "ttft.p99") {
		t.Fatalf("a failing limit: exit %d, want 4 with each term listed:\n%s", code, b)
	}
	if s := readRunSummary(t, out); s.Requests.Total != 100 {
		t.Fatalf("the run's files were not all written first: %d requests in summary.json", s.Requests.Total)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"report", out, "--quiet", "--require", "errors<=50%"}, 0, "pass"},
		{[]string{"report", out, "--quiet", "--require", "errors<=1%"}, 4, "FAIL"},
		{[]string{"report", out, "--quiet", "--require", "ttft.p96<=1s"}, 1, `--require: requirement 1 "ttft.p96<=1s": unknown statistic "p96"`},
		{[]string{"compare", out, out, "--require", "delta.ttft.p95<=+10%"}, 0, "paired per request"},
	} {
		b, err := exec.Command(bin, tc.args...).CombinedOutput()
		if code := exitCode(err); code != tc.code || !strings.Contains(string(b), tc.want) {
			t.Errorf("replay %s: exit %d (want %d), output without %q:\n%s", strings.Join(tc.args, " "), code, tc.code, tc.want, b)
		}
	}
}
