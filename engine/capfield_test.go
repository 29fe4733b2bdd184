package engine

import "testing"

// Only Ollama needs the cap sent as max_tokens.
func TestReadsMaxCompletionTokens(t *testing.T) {
	for _, e := range All() {
		if got, want := e.ReadsMaxCompletionTokens(), e != Ollama; got != want {
			t.Errorf("%s: ReadsMaxCompletionTokens %v, want %v", e, got, want)
		}
	}
}
