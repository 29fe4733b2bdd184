package engine

import (
	"context"
	"io"
	"strings"
	"testing"
)

// TestChooseWithoutDetecting: the in-process simulator and a named engine are chosen without
// a request (nil client, unreachable base), each with its one line of evidence.
func TestChooseWithoutDetecting(t *testing.T) {
	var said strings.Builder
	ch, err := Choose(context.Background(), nil, "http://127.0.0.1:1/v1", "auto", true, &said)
	if err != nil || ch.Engine != VLLM || ch.Simulator != "the built-in simulator" || !strings.Contains(said.String(), "not probed") {
		t.Fatalf("simulated: %+v %v %q", ch, err, said.String())
	}
	ch, err = Choose(context.Background(), nil, "http://127.0.0.1:1/v1", "ollama", false, io.Discard)
	if err != nil || ch.Engine != Ollama || ch.Simulator != "" || len(ch.Evidence) != 1 || ch.Evidence[0] != "--engine ollama" {
		t.Fatalf("named: %+v %v", ch, err)
	}
	if _, err := Choose(context.Background(), nil, "http://127.0.0.1:1/v1", "bogus", false, io.Discard); err == nil {
		t.Fatal("a bogus engine name was chosen")
	}
}

// TestForceWithoutProbing: the simulator, a verbatim run and an engine with no forcing
// fields are decided without a probe, and nothing is added to the body.
func TestForceWithoutProbing(t *testing.T) {
	withheld := []string{"ignore_eos", "min_tokens"}
	for _, c := range []struct {
		ch     Choice
		s      ForceSettings
		forced bool
		note   string
	}{
		{Choice{Engine: VLLM, Simulator: "replay sim"}, ForceSettings{Withheld: withheld}, true, "forced: replay sim runs"},
		{Choice{Engine: VLLM}, ForceSettings{Verbatim: true, Withheld: withheld}, false, "not forced: --body verbatim"},
		{Choice{Engine: Ollama}, ForceSettings{Withheld: withheld}, false, "not forceable on this engine: "},
	} {
		f, err := c.ch.Force(context.Background(), nil, "http://127.0.0.1:1/v1", c.s, io.Discard)
		if err != nil || f.Forced != c.forced || !strings.HasPrefix(f.Note, c.note) || f.Extra != nil || f.Fields != nil {
			t.Errorf("%+v: %+v %v", c.ch, f, err)
		}
	}
}

// TestForceExtra: the engine's fields join the user's, whose keys win; a user's forcing field,
// or an engine field the client would not withhold, adds nothing.
func TestForceExtra(t *testing.T) {
	withheld := []string{"ignore_eos", "min_tokens"}
	vllm := Choice{Engine: VLLM}
	extra := vllm.extra(ForceSettings{Extra: map[string]any{"top_k": 5}, Withheld: withheld})
	if extra["ignore_eos"] != true || extra["top_k"] != 5 {
		t.Errorf("vllm: %v", extra)
	}
	if e := vllm.extra(ForceSettings{Extra: map[string]any{"min_tokens": 1}, Withheld: withheld}); e != nil {
		t.Errorf("the user's forcing: %v", e)
	}
	if e := vllm.extra(ForceSettings{Withheld: []string{"min_tokens"}}); e != nil {
		t.Errorf("a field the client would send to unforced requests: %v", e)
	}
}

// TestResetForRunSimulator: replay's simulator has no reset endpoint, and the summary says so.
func TestResetForRunSimulator(t *testing.T) {
	var said strings.Builder
	state := Choice{Engine: VLLM, Simulator: "replay sim"}.ResetForRun(context.Background(), nil, "http://127.0.0.1:1/v1", &said)
	if !strings.HasPrefix(state, "not reset: replay sim") || !strings.Contains(said.String(), "warning: prefix cache not reset") {
		t.Fatalf("%q %q", state, said.String())
	}
}
