package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/sim"
)

// startSims starts one in-process simulator per config and returns their URLs.
func startSims(t *testing.T, cfgs ...sim.Config) []string {
	t.Helper()
	var urls []string
	for _, sc := range cfgs {
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

// TestMultiRefusals: what a paired run cannot do is refused before anything is sent.
func TestMultiRefusals(t *testing.T) {
	two := func(a, b Endpoint) []Endpoint { return []Endpoint{a, b} }
	ok := Endpoint{Label: "a", URL: "http://127.0.0.1:1/v1", Model: "m"}
	for _, c := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"simulator", Config{Endpoints: two(ok, Endpoint{Label: "b", Model: "m"})}, "built-in simulator cannot be one of several"},
		{"same label", Config{Endpoints: two(ok, ok)}, `label "a" given twice`},
		{"bad label", Config{Endpoints: two(ok, Endpoint{Label: "../x", URL: ok.URL, Model: "m"})}, `label "../x"`},
		{"compare.json", Config{Endpoints: two(ok, Endpoint{Label: runfolder.Compare, URL: ok.URL, Model: "m"})}, "label"},
		{"one metrics page", Config{Endpoints: two(ok, Endpoint{Label: "b", URL: ok.URL, Model: "m"}), MetricsURL: "http://x/metrics"}, "--metrics-url names one page"},
	} {
		c.cfg.Out, c.cfg.Stderr, c.cfg.Stdout = t.TempDir(), &bytes.Buffer{}, &bytes.Buffer{}
		_, err := Run(context.Background(), c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// Without --tokenizer a real endpoint is refused, as in a single run.
	live := startSims(t, sim.DefaultConfig())[0]
	_, err := Run(context.Background(), Config{Out: t.TempDir(), Stderr: &bytes.Buffer{},
		Endpoints: []Endpoint{{Label: "a", URL: live, Model: "replay-sim"}, {Label: "b", URL: live, Model: "replay-sim"}}})
	if err == nil || !strings.Contains(err.Error(), "--tokenizer is required") {
		t.Errorf("no tokenizer: %v", err)
	}
}

// TestMultiWorstError: a paired run exits as its worst endpoint would: interrupted over
// client-bound over failed.
func TestMultiWorstError(t *testing.T) {
	failed := fmt.Errorf("endpoint a: %w", ErrTooManyFailures)
	bound := fmt.Errorf("endpoint b: %w", ErrClientBound)
	if err := worstError([]error{failed, bound}); !errors.Is(err, ErrClientBound) || errors.Is(err, ErrTooManyFailures) {
		t.Errorf("failed and client-bound: %v", err)
	}
	if err := worstError([]error{nil, failed}); !errors.Is(err, ErrTooManyFailures) {
		t.Errorf("failed: %v", err)
	}
	if err := worstError([]error{bound, fmt.Errorf("x: %w", ErrInterrupted)}); !errors.Is(err, ErrInterrupted) {
		t.Errorf("interrupted: %v", err)
	}
	if err := worstError([]error{nil, nil}); err != nil {
		t.Errorf("ok: %v", err)
	}
	if shareLimit(1000, 3) != 333 || shareLimit(1, 2) != 1 || shareLimit(0, 2) != 0 {
		t.Errorf("shareLimit: %d %d %d", shareLimit(1000, 3), shareLimit(1, 2), shareLimit(0, 2))
	}
}

// TestMultiLabelWriter: the scraper's warning names the endpoint.
func TestMultiLabelWriter(t *testing.T) {
	var b bytes.Buffer
	fmt.Fprintf(prefixed(&b, "new"), "replay: server metrics: refused\n")
	if b.String() != "replay: new: server metrics: refused\n" {
		t.Errorf("%q", b.String())
	}
}
