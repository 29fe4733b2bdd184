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

// LevelAuto is a run's default level: LevelBasic against an endpoint; none against replay's
// built-in simulator, which passes every check by construction (this package's tests hold it
// to that) and whose probes would only slow a run that measures nothing real; and none in a
// shard of a sharded run, whose N processes would each probe the one endpoint and could miss
// their shared start doing so (one of them can be given LevelBasic).
const LevelAuto = "auto"

// LevelFor is the level a run probes its target at: "" (a caller who did not ask) is
// LevelNone, LevelAuto is LevelBasic unless the target is the built-in simulator or the run a
// shard; any other level is itself.
func LevelFor(level string, simulated, sharded bool) string {
	switch {
	case level == "":
		return LevelNone
	case level == LevelAuto && (simulated || sharded):
		return LevelNone
	case level == LevelAuto:
		return LevelBasic
	}
	return level
}
