package chat

import (
	"errors"
	"strings"
	"testing"

	"github.com/llm-replay/replay/internal/testenv"
)

// TestTemplateRefusal: a chat template's raise_exception comes back as a TemplateError that
// names the message the template refused (index and role) and quotes what it said, without
// the template engine's trace; the embedded Mistral tokenizer's template refuses a system
// message, Gemma 3's a second user turn in a row.
func TestTemplateRefusal(t *testing.T) {
	cases := []struct {
		name, dir string
		msgs      []Message
		index     int
		role      string
		said      string
	}{
		{"mistral system", testenv.SampleTokenizer(), []Message{{Role: "user", Content: "hi"}, {Role: "assistant", Content: "yo"},
			{Role: "system", Content: "be brief"}, {Role: "user", Content: "and?"}},
			2, "system", "only user and assistant roles are supported"},
		{"gemma3 alternate", testenv.Tokenizer(t, "gemma3"), []Message{{Role: "system", Content: "be brief"},
			{Role: "user", Content: "hi"}, {Role: "user", Content: "again"}},
			2, "user", "Conversation roles must alternate user/assistant/user/assistant/..."},
	}
	for _, c := range cases {
		r, err := Load(c.dir)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		_, err = r.Render(c.msgs)
		var te *TemplateError
		if !errors.As(err, &te) {
			t.Fatalf("%s: %v, want a TemplateError", c.name, err)
		}
		if te.Index != c.index || te.Role != c.role || te.Said != c.said || te.Count != len(c.msgs) {
			t.Errorf("%s: %+v, want message %d (%s) refused with %q", c.name, te, c.index, c.role, c.said)
		}
		for _, trace := range []string{"ControlStructure", "Unable to", "call("} {
			if strings.Contains(err.Error(), trace) {
				t.Errorf("%s: %q holds the engine's trace (%s)", c.name, err, trace)
			}
		}
		if _, err := r.Render(c.msgs[:c.index]); err != nil {
			t.Errorf("%s: the messages before the refused one: %v", c.name, err)
		}
	}
}
