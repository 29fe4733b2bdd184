package checks

import (
	"context"

	"github.com/llm-replay/replay/checkresult"
)

// The levels of `replay run --checks` (checkresult's): which probes a run sends before its
// warmup.
const (
	LevelNone  = checkresult.LevelNone
	LevelBasic = checkresult.LevelBasic
	LevelAll   = checkresult.LevelAll
)

// Levels are the levels, for flags' help and errors.
var Levels = checkresult.Levels

// Names is the probes a level sends, in Run's order (checkresult.Names; TestProbeOrder holds
// the probe table to it); an unknown level is an error naming the levels.
func Names(level string) ([]string, error) { return checkresult.Names(level) }

// RunLevel is Run with the probes of one level only (none for LevelNone), in Run's order.
func RunLevel(ctx context.Context, cfg Config, level string) ([]Result, error) {
	names, err := Names(level)
	if err != nil {
		return nil, err
	}
	return run(ctx, cfg, names), nil
}
