package runner

import (
	"io"
	"strings"
	"testing"

	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/engine"
	"github.com/llm-replay/replay/synth"
	"github.com/llm-replay/replay/trace"
)

// Against Ollama, which reads max_tokens only, a logged max_completion_tokens cap is sent as
// max_tokens (and the run says so once); against vLLM it goes as logged.
func TestCapAsMaxTokensForOllama(t *testing.T) {
	newer := &trace.Options{MaxTokensField: client.MaxCompletionTokens}
	p := &plan{logged: true, reqs: []synth.Request{
		{Record: trace.Record{Options: newer}, MaxTokens: 12},
		{Record: trace.Record{Options: &trace.Options{}}, MaxTokens: 12},
	}}
	var said strings.Builder
	if !(&engineState{choice: engine.Choice{Engine: engine.Ollama}}).capAsMaxTokens(p, &said) || !strings.Contains(said.String(), "the 1 logged requests") {
		t.Fatalf("ollama: not translated (%q)", said.String())
	}
	if (&engineState{choice: engine.Choice{Engine: engine.VLLM}}).capAsMaxTokens(p, io.Discard) {
		t.Fatal("vllm: translated")
	}
	for _, c := range []struct {
		translate bool
		want      string
	}{{true, ""}, {false, client.MaxCompletionTokens}} {
		s := &sender{logged: true, capAsMaxTokens: c.translate}
		req := s.request(&p.reqs[0])
		if req.Options == nil || req.Options.MaxTokensField != c.want || req.MaxTokens != 12 {
			t.Errorf("translate %v: options %+v, max tokens %d", c.translate, req.Options, req.MaxTokens)
		}
	}
	if newer.MaxTokensField != client.MaxCompletionTokens {
		t.Error("the record's own options were changed")
	}
}
