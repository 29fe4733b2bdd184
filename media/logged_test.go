package media

import "testing"

// TestLoggedRules reproduces the providers' documented figures: Anthropic's table of image
// sizes and their approximate tokens, Gemini's 258 for a small image and per tile.
func TestLoggedRules(t *testing.T) {
	for _, c := range []struct {
		rule Rule
		w, h int
		want int
	}{
		{Claude{}, 200, 200, 54},
		{Claude{}, 1000, 1000, 1334},
		{Claude{}, 1092, 1092, 1590},
		{Claude{}, 4000, 3000, 1598}, // scaled to 1.2 MP first: 1264×948
		{Claude{}, 3000, 100, 109},   // long edge to 1568: 1568×52
		{Gemini{}, 384, 384, 258},
		{Gemini{}, 20, 20, 258},
		{Gemini{}, 1000, 700, 2 * 258},
		{Gemini{}, 4000, 3000, 6 * 4 * 258},
	} {
		if got, err := c.rule.Tokens(c.w, c.h); err != nil || got != c.want {
			t.Errorf("%s %dx%d: %d (%v), want %d", c.rule.Name(), c.w, c.h, got, err, c.want)
		}
	}
	for model, want := range map[string]Rule{"anthropic.claude-3-5-sonnet-20241022-v2:0": Claude{}, "gemini-2.0-flash-001": Gemini{}, "claude-sonnet-4@20250514": Claude{}, "meta.llama3-2-90b-instruct-v1:0": nil} {
		if got := LoggedRule(model); got != want {
			t.Errorf("%s: %v, want %v", model, got, want)
		}
	}
}
