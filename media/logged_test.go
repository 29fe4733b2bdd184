package media

import "testing"

// TestLoggedRulesReproduceTheirGuides: each hosted rule gives its provider's own published
// examples (cited in logged.go).
func TestLoggedRulesReproduceTheirGuides(t *testing.T) {
	cases := []struct {
		model         string
		width, height int
		detail        string
		want          int
	}{
		// OpenAI "Calculating costs": 1024×1024 high 765; 2048×4096 high 1105; 4096×8192 low 85.
		{"gpt-4o-2024-08-06", 1024, 1024, "high", 765},
		{"gpt-4o", 2048, 4096, "high", 1105},
		{"gpt-4o", 4096, 8192, "low", 85},
		{"openai/gpt-4o", 1024, 1024, "", 765},
		// gpt-4o-mini's base and tile: 2833 + 4·5667 for 1024×1024.
		{"gpt-4o-mini", 1024, 1024, "auto", 2833 + 4*5667},
		// The patch models: 1024×1024 is 1024 patches, 1800×2400 is 1452, times the multiplier.
		{"gpt-4.1-mini", 1024, 1024, "", 1659}, // 1024 × 1.62 = 1658.88, rounded up
		{"gpt-4.1-nano", 1800, 2400, "", 3572}, // 1452 × 2.46 = 3571.92
		// Anthropic's table: 200×200 ≈ 54, 1000×1000 ≈ 1334, 1092×1092 ≈ 1590.
		{"claude-3-5-sonnet-20241022", 200, 200, "", 54},
		{"claude-sonnet-4", 1000, 1000, "", 1334},
		{"anthropic/claude-3-opus", 1092, 1092, "", 1590},
		// Gemini: 258 up to 384×384; a 1024×768 image is 2 tiles.
		{"gemini-2.0-flash", 384, 384, "", 258},
		{"gemini-2.5-pro", 1024, 768, "", 516},
		// Bedrock's and Vertex's names: a Claude scaled first (4000×3000 to 1264×948; 3000×100 to
		// 1568×52), a Gemini tiled.
		{"anthropic.claude-3-5-sonnet-20241022-v2:0", 4000, 3000, "", 1598},
		{"us.anthropic.claude-3-7-sonnet-20250219-v1:0", 3000, 100, "", 109},
		{"claude-sonnet-4@20250514", 200, 200, "", 54},
		{"gemini-2.0-flash-001", 4000, 3000, "", 6 * 4 * 258},
	}
	for _, c := range cases {
		r, ok := LoggedRule(c.model)
		if !ok {
			t.Fatalf("%s: no rule", c.model)
		}
		got, err := TokensOf(r, c.width, c.height, c.detail)
		if err != nil || got != c.want {
			t.Errorf("%s %dx%d %q: %d (%v), want %d (%s)", c.model, c.width, c.height, c.detail, got, err, c.want, r.Name())
		}
	}
	for _, c := range []struct{ w, h, want int }{{1024, 1024, 1024}, {1800, 2400, 1452}} {
		if got, err := Patches32(c.w, c.h); err != nil || got != c.want {
			t.Errorf("Patches32(%d, %d) = %d (%v), want %d", c.w, c.h, got, err, c.want)
		}
	}
	// A large image is scaled to the long-edge and token limits, never past them.
	r, _ := LoggedRule("claude-3-haiku")
	if n, _ := r.Tokens(4000, 3000); n > 1600 || n < 1500 {
		t.Errorf("claude 4000x3000: %d tokens, want within the ~1600 limit", n)
	}
	for _, name := range []string{"prod-model", "Qwen/Qwen2-VL-7B-Instruct", "", "gpt-3.5-turbo", "meta.llama3-2-90b-instruct-v1:0"} {
		if _, ok := LoggedRule(name); ok {
			t.Errorf("%q: a rule, want none (the served model's own counts)", name)
		}
	}
}
