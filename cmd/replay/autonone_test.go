package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/runner"
)

// TestAutoNoneWords: the words auto and none set what the numbers they replace set, the numbers
// still work, the words show as the defaults in --help, and a bad value names its flag.
func TestAutoNoneWords(t *testing.T) {
	for _, c := range []struct {
		args []string
		got  func(runner.Config) any
		want any
	}{
		{[]string{"--client-limit", "auto"}, func(c runner.Config) any { return c.ClientLimit }, 0},
		{[]string{"--client-limit", "none"}, func(c runner.Config) any { return c.ClientLimit }, -1},
		{[]string{"--client-limit", "-1"}, func(c runner.Config) any { return c.ClientLimit }, -1},
		{[]string{"--client-limit", "300"}, func(c runner.Config) any { return c.ClientLimit }, 300},
		{[]string{"--preconnect", "AUTO"}, func(c runner.Config) any { return c.Preconnect }, -1},
		{[]string{"--preconnect", "none"}, func(c runner.Config) any { return c.Preconnect }, 0},
		{[]string{"--preconnect", "-1"}, func(c runner.Config) any { return c.Preconnect }, -1},
		{[]string{"--max-concurrency", "none"}, func(c runner.Config) any { return c.Schedule.MaxConcurrency }, 0},
		{[]string{"--max-concurrency", "8"}, func(c runner.Config) any { return c.Schedule.MaxConcurrency }, 8},
		{[]string{"--limit", "none"}, func(c runner.Config) any { return c.Limit }, 0},
		{[]string{"--max-prompt-tokens", "none"}, func(c runner.Config) any { return c.Synth.MaxPromptTokens }, 0},
		{[]string{"--max-lateness", "none"}, func(c runner.Config) any { return c.MaxLateness }, time.Duration(0)},
		{[]string{"--max-lateness", "0"}, func(c runner.Config) any { return c.MaxLateness }, time.Duration(0)},
		{[]string{"--max-lateness", "1h"}, func(c runner.Config) any { return c.MaxLateness }, time.Hour},
		{[]string{"--timeout", "none"}, func(c runner.Config) any { return c.Client.Timeout }, time.Duration(0)},
		{[]string{"--stall-timeout", "2s"}, func(c runner.Config) any { return c.Client.StallTimeout }, 2 * time.Second},
		{[]string{"--duration", "none"}, func(c runner.Config) any { return c.Schedule.Duration }, time.Duration(0)},
		{[]string{"--to", "none"}, func(c runner.Config) any { return c.Schedule.To }, time.Duration(0)},
		{[]string{"--snapshot-every", "none"}, func(c runner.Config) any { return c.SnapshotEvery }, time.Duration(-1)},
		{[]string{"--snapshot-every", "0"}, func(c runner.Config) any { return c.SnapshotEvery }, time.Duration(-1)},
		{[]string{"--plan-memory", "auto"}, func(c runner.Config) any { return c.PlanMemory }, int64(0)},
		{[]string{"--plan-memory", "all"}, func(c runner.Config) any { return c.PlanMemory }, int64(-1)},
		{[]string{"--metrics-url", "auto"}, func(c runner.Config) any { return c.MetricsURL }, ""},
		{[]string{"--metrics-url", "none"}, func(c runner.Config) any { return c.MetricsURL }, "none"},
		{[]string{"--options", "auto"}, func(c runner.Config) any { return c.Options }, ""},
		{[]string{"--sim-fault-retry-after", "none"}, func(c runner.Config) any { return c.Sim.Faults.RetryAfter }, time.Duration(0)},
	} {
		cfg, _, err := parseRunFlags(t, c.args...)
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if got := c.got(cfg); got != c.want {
			t.Errorf("%q: %v, want %v", c.args, got, c.want)
		}
	}
	for _, bad := range []string{"--client-limit", "--preconnect", "--max-concurrency", "--max-lateness", "--snapshot-every", "--plan-memory"} {
		_, _, err := parseRunFlags(t, bad, "sometimes")
		if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "want ") {
			t.Errorf("%s sometimes: error %v, want one naming the flag and what it takes", bad, err)
		}
	}
}

// TestAutoNoneHelp: --help names the words, in the type column and as the default.
func TestAutoNoneHelp(t *testing.T) {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	setupRun(fs, cli{stdout: io.Discard, stderr: io.Discard})
	help := fs.FlagUsages()
	for _, want := range []string{"--client-limit auto|none|int", "--preconnect auto|none|int", "--max-concurrency none|int",
		"--max-lateness none|duration", "(default auto)", "(default none)"} {
		if !strings.Contains(help, want) {
			t.Errorf("replay run --help lacks %q", want)
		}
	}
	for _, name := range []string{"client-limit", "preconnect", "max-concurrency", "max-lateness", "snapshot-every", "plan-memory", "metrics-url", "timeout"} {
		if u := fs.Lookup(name).Usage; !strings.Contains(u, "auto:") && !strings.Contains(u, "none:") {
			t.Errorf("--%s help does not say what auto or none means: %q", name, u)
		}
	}
}
