package runner

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/checks"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/runfolder"
)

// checks.go runs the behaviour checks of a run's endpoint (package checks): its probes once
// the endpoint is connected, before the warmup, so that they see the server as the run will
// and none of their requests is in the run's figures; and, once the rows are written, the
// overload check over every answer of the measured run. The results go into summary.json's
// run.checks (per endpoint in a paired run, and side by side in compare.json), the terminal
// and the reports. A failed check is a finding, not an error: the run's exit code changes only
// under --require checks (require's checks terms).

// ChecksAuto is `replay run`'s default --checks (checks.LevelAuto): basic against an
// endpoint, none against the built-in simulator or in a shard of a sharded run.
const ChecksAuto = checks.LevelAuto

// ChecksLevels are --checks' values, for its help.
var ChecksLevels = append([]string{ChecksAuto}, checks.Levels...)

// CheckChecks reports whether level is a --checks level (auto, none, basic, all), so a command
// can refuse a bad one before the trace is read.
func CheckChecks(level string) error {
	if level == ChecksAuto {
		return nil
	}
	if _, err := checks.Names(level); err != nil {
		return fmt.Errorf("--checks %q: want %s", level, strings.Join(ChecksLevels, ", "))
	}
	return nil
}

// probeChecks sends the probes of cfg.Checks to the target's endpoint; nil when the level
// sends none.
func probeChecks(ctx context.Context, cfg Config, tg *target) (*analysis.Checks, error) {
	level := checks.LevelFor(cfg.Checks, tg.simulated, cfg.Schedule.Shards > 1)
	if level == checks.LevelNone {
		return nil, nil
	}
	names, err := checks.Names(level)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Stderr, "replay: behaviour checks (--checks %s: %s), before the warmup\n", level, strings.Join(names, ", "))
	res, err := checks.RunLevel(ctx, checks.Config{BaseURL: tg.eng.base, API: probeAPI(cfg.Client.API), Model: tg.model, APIKey: cfg.Client.APIKey,
		HTTPClient: &http.Client{Transport: transportOf(tg.client)}, Timeout: checks.TimeoutWithin(cfg.Client.Timeout, cfg.Client.StallTimeout)}, level)
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("behaviour checks: %w", ctx.Err())
	}
	c := analysis.NewChecks(level, res)
	if len(c.Failed) > 0 {
		fmt.Fprintf(cfg.Stderr, "replay: warning: behaviour checks failed: %v (details in the table after the run and in report.html)\n", c.Failed)
	}
	return c, nil
}

// addOverload judges overload semantics over every attempt of the measured run in dir's
// requests.parquet (warmup left out, as the summary leaves it out) and adds it to c.
func addOverload(dir string, c *analysis.Checks) error {
	if c == nil {
		return nil
	}
	var answers []checks.Answer
	err := rowfile.Read(filepath.Join(dir, runfolder.Requests), func(r results.Row) error {
		if !r.Warmup {
			answers = append(answers, checks.Answer{Status: int(r.HTTPStatus), RetryAfterNS: r.RetryAfterNS})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("behaviour checks: the overload check: %w", err)
	}
	c.Add(checks.Overload(answers))
	return nil
}

// writeChecks prints the endpoints' checks side by side after the run's tables, those that
// did not pass with what was seen; nothing when no endpoint had checks.
func writeChecks(cfg Config, eps []checks.Endpoint) error {
	any := false
	for _, ep := range eps {
		any = any || len(ep.Results) > 0
	}
	if !any {
		return nil
	}
	if err := checks.WriteText(cfg.Stdout, eps); err != nil {
		return err
	}
	_, err := fmt.Fprintln(cfg.Stdout)
	return err
}
