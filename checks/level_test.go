package checks

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/sim"
)

// TestRunLevel: basic probes streaming, stop, max_tokens and sampling (each passing on the
// simulator), all every probe, none nothing; an unknown level is an error naming the levels.
func TestRunLevel(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.StepBase, cfg.StepPerSeq, cfg.StepPerKVToken = 3*time.Millisecond, 0, 0
	url := startSim(t, cfg)
	for level, want := range map[string][]string{
		LevelNone:  nil,
		LevelBasic: {Streaming, Stop, MaxTokens, Sampling},
		LevelAll:   {Streaming, ToolCalls, StructuredOutput, Stop, MaxTokens, Sampling},
	} {
		res, err := RunLevel(t.Context(), Config{BaseURL: url + "/v1", Model: "m"}, level)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, r := range res {
			names = append(names, r.Name)
			if r.Verdict() != VerdictPass {
				t.Errorf("%s: %s %s", level, r.Name, r.Verdict())
			}
		}
		if !slices.Equal(names, want) {
			t.Errorf("%s: %v, want %v", level, names, want)
		}
	}
	if _, err := RunLevel(t.Context(), Config{BaseURL: url + "/v1", Model: "m"}, "most"); err == nil ||
		!strings.Contains(err.Error(), `checks level "most": want none, basic or all`) {
		t.Errorf("unknown level: %v", err)
	}
}

// TestProbeOrder: the probe table runs the checks checkresult.Names gives for LevelAll, in
// that order, so that a summary names the checks a level holds without linking the probes.
func TestProbeOrder(t *testing.T) {
	var got []string
	for _, pr := range probes {
		got = append(got, pr.name)
	}
	want, err := Names(LevelAll)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("probes %v, checkresult.Names(all) %v", got, want)
	}
}

// TestLevelFor: auto probes an endpoint at basic, and neither the built-in simulator nor a
// shard; "" is none; a level asked for is kept, also against the simulator.
func TestLevelFor(t *testing.T) {
	for _, c := range []struct {
		level              string
		simulated, sharded bool
		want               string
	}{
		{"", false, false, LevelNone},
		{LevelAuto, false, false, LevelBasic},
		{LevelAuto, true, false, LevelNone},
		{LevelAuto, false, true, LevelNone},
		{LevelAll, true, true, LevelAll},
	} {
		if got := LevelFor(c.level, c.simulated, c.sharded); got != c.want {
			t.Errorf("LevelFor(%q, %v, %v) = %q, want %q", c.level, c.simulated, c.sharded, got, c.want)
		}
	}
}

// TestTimeoutWithin: a probe waits no longer than a run's request timeout or five stalls.
func TestTimeoutWithin(t *testing.T) {
	if got := TimeoutWithin(0, 0); got != DefaultTimeout {
		t.Errorf("no bounds: %v", got)
	}
	if got := TimeoutWithin(10*time.Second, 0); got != 10*time.Second {
		t.Errorf("request timeout: %v", got)
	}
	if got := TimeoutWithin(10*time.Second, time.Second); got != 5*time.Second {
		t.Errorf("stall timeout: %v", got)
	}
}
