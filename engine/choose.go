package engine

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
)

// simulatorOwner is how detection's evidence quotes the owned_by of replay's simulator's
// models (sim/server.go), which Detect counts as vLLM's dialect.
const simulatorOwner = `owned_by "replay-simulator"`

// Choice is the engine a run speaks to and how it came to be known.
type Choice struct {
	Engine   Engine
	Version  string
	Evidence []string
	// Simulator names replay's simulator when it is the target ("the built-in simulator", or
	// "replay sim" behind the endpoint, known by its owned_by), "" for an engine: its answers
	// run to max_tokens by construction, so it is not probed.
	Simulator string
	// MetricsPath is where detection found the engine's Prometheus names (Detection's), ""
	// when it did not look or found none.
	MetricsPath string
}

// Choose names the engine behind baseURL: the in-process simulator's vLLM dialect when
// simulated, the engine name names (an --engine value: auto detects), or what Detect finds
// asking through c. The verdict is printed on one line to w.
func Choose(ctx context.Context, c *http.Client, baseURL, name string, simulated bool, w io.Writer) (Choice, error) {
	chosen, err := ParseEngine(name)
	if err != nil {
		return Choice{}, err
	}
	switch {
	case simulated:
		fmt.Fprintf(w, "replay: engine: vllm-compatible (the built-in simulator; not probed)\n")
		return Choice{Engine: VLLM, Simulator: "the built-in simulator",
			Evidence: []string{"the built-in simulator: vLLM's API and metric names (not probed)"}}, nil
	case chosen != Auto:
		fmt.Fprintf(w, "replay: engine: %s (--engine; not detected)\n", chosen)
		return Choice{Engine: chosen, Evidence: []string{"--engine " + string(chosen)}}, nil
	}
	det, err := Detect(ctx, c, baseURL)
	if err != nil {
		return Choice{}, err
	}
	ch := Choice{Engine: det.Engine, Version: det.Version, Evidence: det.Evidence, MetricsPath: det.MetricsPath}
	line, _, _ := strings.Cut(det.String(), "\n")
	if det.Engine == VLLM && slices.ContainsFunc(det.Evidence, func(ev string) bool { return strings.Contains(ev, simulatorOwner) }) {
		ch.Simulator = "replay sim"
		line += "; replay's simulator, vllm-compatible, not probed"
	}
	fmt.Fprintf(w, "replay: engine: %s\n", line)
	return ch, nil
}
