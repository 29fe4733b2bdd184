package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/llm-replay/replay/runner"
)

// A runner setting's error reads as its flag, wrapped or not, and keeps its exit code.
func TestFlagNamed(t *testing.T) {
	for _, tc := range []struct {
		cfg  runner.Config
		want string
	}{
		{runner.Config{}, "--out is required"},
		{runner.Config{Out: "x", Retries: -1}, "--retries -1: want 0 or more"},
		{runner.Config{Out: "x", Progress: "fancy"}, `--progress "fancy": want auto, plain or json`},
		{runner.Config{Out: "x", Checks: "most"}, `--checks "most": want auto, none, basic, all`},
	} {
		err := tc.cfg.Validate()
		if got := flagNamed(err); got == nil || got.Error() != tc.want {
			t.Errorf("%v: got %v, want %s", err, got, tc.want)
		}
		wrapped := &exitError{code: 3, err: fmt.Errorf("endpoint b: %w", err)}
		got := flagNamed(wrapped)
		var ee *exitError
		if got.Error() != "endpoint b: "+tc.want || !errors.As(got, &ee) || ee.code != 3 {
			t.Errorf("wrapped %v: got %v", wrapped, got)
		}
	}
	if err := (runner.Config{Out: "x", Engine: "vlm"}).Validate(); flagNamed(err).Error() != `--engine "vlm": want one of auto, vllm, sglang, tgi, trtllm, llamacpp, ollama, openai, generic` {
		t.Errorf("engine: %v", flagNamed(err))
	}
}
