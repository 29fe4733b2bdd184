package checks

import (
	"context"
	"fmt"
	"slices"
)

// The levels of `replay run --checks`: which probes a run sends before its warmup.
const (
	// LevelNone sends no probe, and a run judges no overload either.
	LevelNone = "none"
	// LevelBasic probes what every OpenAI-compatible server must do with a plain request:
	// streaming, stop, max_tokens and the sampling fields (about ten short requests).
	LevelBasic = "basic"
	// LevelAll adds forced tool calls and response_format json_schema, which a server does
	// only when it was deployed with a tool parser or constrained decoding (vLLM needs
	// --enable-auto-tool-choice for the one): their failure on a server that never meant to
	// serve them says so, rather than that the server is broken.
	LevelAll = "all"
)

// Levels are the levels, for flags' help and errors.
var Levels = []string{LevelNone, LevelBasic, LevelAll}

// basicProbes are LevelBasic's checks; LevelAll is every probe.
var basicProbes = []string{Streaming, Stop, MaxTokens, Sampling}

// Names is the probes a level sends, in Run's order; an unknown level is an error naming the
// levels.
func Names(level string) ([]string, error) {
	var out []string
	switch level {
	case LevelNone:
	case LevelBasic, LevelAll:
		for _, pr := range probes {
			if level == LevelAll || slices.Contains(basicProbes, pr.name) {
				out = append(out, pr.name)
			}
		}
	default:
		return nil, fmt.Errorf("--checks %q: want %s, %s or %s", level, LevelNone, LevelBasic, LevelAll)
	}
	return out, nil
}

// RunLevel is Run with the probes of one level only (none for LevelNone), in Run's order.
func RunLevel(ctx context.Context, cfg Config, level string) ([]Result, error) {
	names, err := Names(level)
	if err != nil {
		return nil, err
	}
	return run(ctx, cfg, names), nil
}
