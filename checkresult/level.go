package checkresult

import (
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

// probeOrder is every probe's check in the order they run; package checks' tests hold its
// probe table to it.
var probeOrder = []string{Streaming, ToolCalls, StructuredOutput, Stop, MaxTokens, Sampling}

// basicProbes are LevelBasic's checks; LevelAll is every probe.
var basicProbes = []string{Streaming, Stop, MaxTokens, Sampling}

// Names is the checks a level probes, in the order they run; an unknown level is an error
// naming the levels. It is data, not the probes themselves, so that a summary can name the
// checks a level holds without linking the code that sends them.
func Names(level string) ([]string, error) {
	var out []string
	switch level {
	case LevelNone:
	case LevelBasic, LevelAll:
		for _, name := range probeOrder {
			if level == LevelAll || slices.Contains(basicProbes, name) {
				out = append(out, name)
			}
		}
	default:
		return nil, fmt.Errorf("checks level %q: want %s, %s or %s", level, LevelNone, LevelBasic, LevelAll)
	}
	return out, nil
}
