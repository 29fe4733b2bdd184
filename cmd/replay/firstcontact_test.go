package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/runner"
	"github.com/llm-replay/replay/sim"
	"github.com/llm-replay/replay/synth/tokenizer"
)

// A newcomer's usual setup mistakes, each against a real process (replay sim, a closed port, a
// TLS server on loopback), stop `replay run` and `replay run --dry-run` before the schedule
// with exit 1, naming the URL tried, what answered and the fix; nothing is sent and no
// requests.parquet is written.
func TestFirstContactSetupMistakes(t *testing.T) {
	bin := replayBin(t)
	simURL := startSim(t, bin, "--zero-cost")
	tlsURL := tlsSim(t)
	trace := writeRateTrace(t, 5, 50, 4)
	cases := []struct {
		name, endpoint string
		want           []string
	}{
		{"closed port", "http://" + closedPort(t) + "/v1", []string{"connection refused", "nothing is listening at 127.0.0.1:", "fix the host and port"}},
		{"unknown host", "http://replay-no-such-host.invalid/v1", []string{"host \"replay-no-such-host.invalid\"", "fix the host in --endpoint"}},
		{"wrong path", strings.TrimSuffix(simURL, "/v1") + "/v2", []string{"/v2/completions answered 404 Not Found", "usually ends in /v1"}},
		{"https at plain http", strings.Replace(simURL, "http://", "https://", 1), []string{"the server does not speak TLS", "(http://, not https://)"}},
		{"http at TLS", strings.Replace(tlsURL, "https://", "http://", 1), []string{"the server speaks TLS and refused plain HTTP", "(https://, not http://)"}},
	}
	for _, c := range cases {
		for _, dry := range []bool{false, true} {
			name := c.name
			flags := []string{"--max-lateness", "0", "--metrics-url", "none"}
			if dry {
				name += " dry-run"
				flags = append(flags, "--dry-run")
			}
			t.Run(name, func(t *testing.T) {
				code, out, stderr, _ := runAgainst(t, bin, c.endpoint, trace, 0, flags...)
				if code != 1 {
					t.Fatalf("exit %d, want 1:\n%s", code, stderr)
				}
				for _, w := range c.want {
					if !strings.Contains(stderr, w) {
						t.Errorf("stderr does not say %q:\n%s", w, stderr)
					}
				}
				if _, err := os.Stat(filepath.Join(out, "requests.parquet")); !os.IsNotExist(err) {
					t.Errorf("a refused run wrote requests.parquet (%v)", err)
				}
			})
		}
	}
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// tlsSim serves the simulator over TLS on loopback and returns its /v1 URL.
func tlsSim(t *testing.T) string {
	t.Helper()
	sc := sim.DefaultConfig()
	sc.ZeroCost = true
	srv := sim.New(sc)
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ts := httptest.NewUnstartedServer(srv)
	ts.Config.ErrorLog = log.New(io.Discard, "", 0)
	ts.StartTLS()
	t.Cleanup(ts.Close)
	return ts.URL + "/v1"
}

// The verdict judges the run as a measurement and the endpoint as a service, each case a real
// `replay sim` and `replay run`: the simulator with its default tokenizer and a run with none
// given count alike (valid, exit 0); a simulator counting with another tokenizer makes the
// lengths not as logged (exit 6, the tokenizers named); a log losing 3 of its 5 lines to
// --on-error skip is not valid (exit 7); an endpoint serving half the arrival rate is saturated
// (exit 0: a finding about the endpoint, not the run).
func TestFirstContactVerdicts(t *testing.T) {
	bin := replayBin(t)
	t.Run("sim and run with no tokenizer", func(t *testing.T) {
		url := startSim(t, bin, "--zero-cost")
		out := t.TempDir()
		code, stderr := runReplay(t, bin, "run", "--endpoint", url, "--trace", writeFidelityTrace(t), "--speed", "8", "--out", out)
		s := readRunSummary(t, out)
		t.Logf("exit %d, verdict: %s", code, s.Verdict)
		if code != 0 || !strings.HasPrefix(s.Verdict, "valid: endpoint healthy") || s.Fidelity.PromptTokensExactPct == nil || *s.Fidelity.PromptTokensExactPct != 100 {
			t.Fatalf("exit %d, verdict %q, prompt exact %v: want 0, valid, 100%%:\n%s", code, s.Verdict, s.Fidelity.PromptTokensExactPct, stderr)
		}
	})
	t.Run("sim with another tokenizer", func(t *testing.T) {
		url := startSim(t, bin, "--zero-cost", "--tokenizer", testenv.Tokenizer(t, "llama3"))
		out := t.TempDir()
		code, stderr := runReplay(t, bin, "run", "--endpoint", url, "--tokenizer", testenv.SampleTokenizer(), "--trace", writeFidelityTrace(t), "--speed", "8", "--out", out)
		s := readRunSummary(t, out)
		t.Logf("exit %d, verdict: %s", code, s.Verdict)
		if code != 6 || !strings.HasPrefix(s.Verdict, "not valid: the endpoint did not see the logged lengths") ||
			!strings.Contains(s.Verdict, "another tokenizer") || s.Judgement == nil || s.Judgement.Lengths != analysis.LengthsNotAsLogged {
			t.Fatalf("exit %d, verdict %q: want 6, lengths not as logged, the tokenizers named:\n%s", code, s.Verdict, stderr)
		}
	})
	t.Run("paired sims with no model or tokenizer", func(t *testing.T) {
		a, b := startSim(t, bin, "--zero-cost"), startSim(t, bin, "--zero-cost")
		out := t.TempDir()
		code, stderr := runReplay(t, bin, "run", "--endpoint", "a="+a, "--endpoint", "b="+b, "--trace", writeFidelityTrace(t), "--speed", "8", "--out", out)
		for _, label := range []string{"a", "b"} {
			s := readRunSummary(t, filepath.Join(out, label))
			t.Logf("%s: exit %d, verdict: %s", label, code, s.Verdict)
			if code != 0 || s.Run.Model != "replay-sim" || !analysis.VerdictIs(s.Verdict, analysis.VerdictOK) {
				t.Fatalf("%s: exit %d, model %q, verdict %q: want 0, the one listed model, valid:\n%s", label, code, s.Run.Model, s.Verdict, stderr)
			}
		}
	})
	t.Run("three of five lines skipped", func(t *testing.T) {
		url := startSim(t, bin, "--zero-cost")
		trace := filepath.Join(t.TempDir(), "half-bad.jsonl")
		good := `{"timestamp": %d, "input_length": 64, "output_length": 4, "hash_ids": [1]}`
		lines := []string{fmt.Sprintf(good, 0), `{"timestamp": 10, "input_length": "sixty"}`, `not json`, `{"timestamp": 30}`, fmt.Sprintf(good, 40)}
		if err := os.WriteFile(trace, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		code, stderr := runReplay(t, bin, "run", "--endpoint", url, "--trace", trace, "--format", "mooncake", "--on-error", "skip", "--out", out)
		s := readRunSummary(t, out)
		t.Logf("exit %d, verdict: %s", code, s.Verdict)
		if code != 7 || !strings.Contains(s.Verdict, "3 of the log's 5 lines rejected as bad (60.0%, over --max-skip 1%)") ||
			s.Input == nil || s.Input.Lines != 5 || s.Input.Rejected != 3 || s.Input.Records != 2 {
			t.Fatalf("exit %d, verdict %q, input %+v: want 7, 3 of 5 rejected:\n%s", code, s.Verdict, s.Input, stderr)
		}
		code, _ = runReplay(t, bin, "run", "--endpoint", url, "--trace", trace, "--format", "mooncake", "--on-error", "skip", "--max-skip", "60%", "--out", t.TempDir())
		if code != 0 {
			t.Fatalf("--max-skip 60%%: exit %d, want 0", code)
		}
	})
	t.Run("saturated", func(t *testing.T) {
		// One sequence at a time, 16 decode steps of 15 ms: about 4 answers a second against
		// 10 arrivals a second.
		url := startSim(t, bin, "--max-batch", "1", "--jitter", "0")
		out := t.TempDir()
		code, stderr := runReplay(t, bin, "run", "--endpoint", url, "--trace", writeRateTrace(t, 100, 10, 16), "--max-error-rate", "1", "--out", out)
		s := readRunSummary(t, out)
		t.Logf("exit %d, verdict: %s", code, s.Verdict)
		if code != 0 || !strings.HasPrefix(s.Verdict, "valid: endpoint saturated (TTFT p50 ") || s.Judgement.Endpoint != analysis.EndpointSaturated {
			t.Fatalf("exit %d, verdict %q: want 0, valid, endpoint saturated:\n%s", code, s.Verdict, stderr)
		}
	})
}

// runReplay runs the binary and returns its exit code and stderr.
func runReplay(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	return exitCode(err), stderr.String()
}

// countingSim is a simulator configuration counting prompts with the tokenizer at tokPath, as
// `replay sim --tokenizer` does, so a run counting with the same one is judged exact.
func countingSim(t *testing.T, sc sim.Config, tokPath string) sim.Config {
	t.Helper()
	tok, err := tokenizer.Load(tokPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := runner.ServerCounting(tokPath, tok, &sc); err != nil {
		t.Fatal(err)
	}
	return sc
}
