package checks

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/sim"
)

// collect sends n requests to url, marked for the overload burst, and keeps what Overload needs
// of each answer, as a runner's rows would hold it.
func collect(t *testing.T, url string, n int) []Answer {
	t.Helper()
	var out []Answer
	for range n {
		req, err := http.NewRequest(http.MethodPost, url+"/v1/chat/completions",
			strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":1}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set(overloadHeader, "1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		a := Answer{Status: resp.StatusCode}
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
			a.RetryAfterNS = int64(s) * int64(time.Second)
		}
		out = append(out, a)
	}
	return out
}

// allChecks are the Results' names in order: Run's, then Overload.
var allChecks = []string{Streaming, ToolCalls, StructuredOutput, Stop, MaxTokens, Sampling, OverloadCheck}

// runAll runs every probe and Overload over an overload burst against url.
func runAll(t *testing.T, url string, burstURL string) []Result {
	t.Helper()
	res := Run(t.Context(), Config{BaseURL: url + "/v1", Model: "m", Timeout: 20 * time.Second})
	res = append(res, Overload(collect(t, burstURL, 10)))
	var names []string
	for _, r := range res {
		names = append(names, r.Name)
	}
	if !slices.Equal(names, allChecks) {
		t.Fatalf("results %v, want %v", names, allChecks)
	}
	return res
}

// report is the Results as the terminal shows them, for failure messages.
func report(res []Result) string {
	var b bytes.Buffer
	WriteText(&b, []Endpoint{{Results: res}})
	return b.String()
}

// TestEachBreakageFailsOnlyItsCheck: a loopback server that breaks one behaviour makes exactly
// that check fail, with an example that says so, and every other pass; one that breaks none
// passes all.
func TestEachBreakageFailsOnlyItsCheck(t *testing.T) {
	cases := []struct {
		broken  breakage
		check   string
		example string // in the failing check's first example
	}{
		{behaveWell, "", ""},
		{burstStream, Streaming, "all content in one burst at the end"},
		{badToolArgs, ToolCalls, "does not fit the schema"},
		{badSchemaJSON, StructuredOutput, "does not fit the schema"},
		{ignoreStop, Stop, "holds the stop string STOPWORD"},
		{ignoreMaxTokens, MaxTokens, "usage says 40 completion tokens for max_tokens 8"},
		{rejectSampling, Sampling, "top_p=0.9 refused: HTTP 400"},
		{noRetryAfter, OverloadCheck, "429 without Retry-After (5 of 5)"},
	}
	for _, tc := range cases {
		name := tc.check
		if name == "" {
			name = "none"
		}
		t.Run(name, func(t *testing.T) {
			hs := httptest.NewServer(&fakeServer{broken: tc.broken})
			defer hs.Close()
			res := runAll(t, hs.URL, hs.URL)
			for _, r := range res {
				want := VerdictPass
				if r.Name == tc.check {
					want = VerdictFail
				}
				if r.Verdict() != want {
					t.Errorf("%s: %s, want %s\n%s", r.Name, r.Verdict(), want, report(res))
				}
				if r.Name != tc.check {
					continue
				}
				if len(r.Examples) == 0 || !strings.Contains(r.Examples[0], tc.example) {
					t.Errorf("%s: examples %q, want one saying %q", r.Name, r.Examples, tc.example)
				}
				t.Logf("%s: %s, seen %s, examples %q", r.Name, r.Verdict(), r.Seen, r.Examples)
			}
		})
	}
}

// TestSimulatorPassesAll: the simulator passes every check, zero-cost and under its cost model
// (its decode steps long enough that a stream takes visibly longer than one read), and
// Overload over its injected 429s, each with Retry-After.
func TestSimulatorPassesAll(t *testing.T) {
	burst := sim.DefaultConfig()
	burst.ZeroCost = true
	burst.Faults = sim.Faults{RateLimitRate: 0.5, RetryAfter: time.Second}
	burstURL := startSim(t, burst)
	for _, zero := range []bool{true, false} {
		t.Run(fmt.Sprintf("zero-cost=%v", zero), func(t *testing.T) {
			cfg := sim.DefaultConfig()
			cfg.ZeroCost = zero
			cfg.StepBase, cfg.StepPerSeq, cfg.StepPerKVToken, cfg.PrefillPerToken = 3*time.Millisecond, 0, 0, time.Microsecond
			res := runAll(t, startSim(t, cfg), burstURL)
			for _, r := range res {
				if r.Verdict() != VerdictPass {
					t.Errorf("%s: %s\n%s", r.Name, r.Verdict(), report(res))
				}
			}
			for _, r := range res {
				t.Logf("%s: %s", r.Name, r.Seen)
			}
		})
	}
}

// startSim serves a simulator on loopback and returns its URL.
func startSim(t *testing.T, cfg sim.Config) string {
	t.Helper()
	s := sim.New(cfg)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(func() {
		hs.Close()
		s.Close()
	})
	return hs.URL
}
