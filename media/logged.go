package media

import (
	"fmt"
	"math"
	"strings"
)

// logged.go is how the hosted APIs a log may come from counted an image, so that a logged
// prompt total splits into its text and its images: the text is replayed exact, the images are
// counted again by the served model's rule. Each rule is the provider's own published account
// (no source of theirs is public), cited where it is defined; where the page gives examples,
// media's tests reproduce them. A logged model name that names none of these families is
// counted by the served model's own rule (the caller says so), or by --logged-model.

// DetailRule is a Rule whose count depends on the image part's detail ("low", "high", "auto",
// "" for none), as OpenAI's does.
type DetailRule interface {
	Rule
	TokensDetail(width, height int, detail string) (int, error)
}

// TokensOf is r's count of an image with the given detail: a DetailRule's own, else Tokens.
func TokensOf(r Rule, width, height int, detail string) (int, error) {
	if d, ok := r.(DetailRule); ok {
		return d.TokensDetail(width, height, detail)
	}
	return r.Tokens(width, height)
}

// LoggedRule is the rule of the hosted model a log names, by its name as the API reports it
// (a dated snapshot such as gpt-4o-2024-08-06 is its family's), and false when the name names
// no family known here.
func LoggedRule(model string) (Rule, bool) {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 { // a gateway's "openai/gpt-4o", "anthropic/claude-…"
		m = m[i+1:]
	}
	for _, f := range openAIFamilies {
		if strings.HasPrefix(m, f.prefix) {
			return f.rule, true
		}
	}
	switch { // Bedrock ids and inference profiles (anthropic.claude-…, us.anthropic.claude-…), Vertex's publishers/google/models/gemini-…
	case strings.Contains(m, "claude"):
		return anthropicRule{}, true
	case strings.Contains(m, "gemini"):
		return geminiRule{}, true
	}
	return nil, false
}

// openAIFamilies are OpenAI's vision models by name prefix, the longer prefix first. Source:
// OpenAI's "Images and vision" guide, "Calculating costs" (platform.openai.com/docs/guides/
// images-vision, as served 2026): the patch models (gpt-4.1-mini ×1.62, gpt-4.1-nano ×2.46,
// o4-mini ×1.72) and the tile models with their base and tile tokens (gpt-4o, gpt-4.1, gpt-4.5
// 85 and 170; gpt-4o-mini 2833 and 5667; o1, o1-pro, o3 75 and 150; computer-use-preview 65
// and 129).
var openAIFamilies = []struct {
	prefix string
	rule   Rule
}{
	{"gpt-4.1-mini", openAIPatches{"gpt-4.1-mini", 1.62}},
	{"gpt-4.1-nano", openAIPatches{"gpt-4.1-nano", 2.46}},
	{"o4-mini", openAIPatches{"o4-mini", 1.72}},
	{"gpt-4o-mini", openAITiles{"gpt-4o-mini", 2833, 5667}},
	{"gpt-4o", openAITiles{"gpt-4o", 85, 170}},
	{"chatgpt-4o", openAITiles{"gpt-4o", 85, 170}},
	{"gpt-4.1", openAITiles{"gpt-4.1", 85, 170}},
	{"gpt-4.5", openAITiles{"gpt-4.5", 85, 170}},
	{"o1", openAITiles{"o1", 75, 150}},
	{"o3", openAITiles{"o3", 75, 150}},
	{"computer-use-preview", openAITiles{"computer-use-preview", 65, 129}},
}

// openAITiles is the tile rule: detail low is the base alone; otherwise the image is scaled to
// fit within 2048×2048, then down so its shortest side is 768, and each 512-pixel square
// covering it costs tile tokens, plus the base. "auto" and no detail count as high (the model
// decides; high is what a large image gets).
type openAITiles struct {
	family     string
	base, tile int
}

func (r openAITiles) Name() string {
	return fmt.Sprintf("%s (OpenAI: %d + %d per 512-pixel tile)", r.family, r.base, r.tile)
}

func (r openAITiles) Tokens(width, height int) (int, error) { return r.TokensDetail(width, height, "") }

func (r openAITiles) TokensDetail(width, height int, detail string) (int, error) {
	if width <= 0 || height <= 0 {
		return 0, fmt.Errorf("image size %dx%d: both sides must be positive", width, height)
	}
	if detail == "low" {
		return r.base, nil
	}
	w, h := float64(width), float64(height)
	if s := 2048 / math.Max(w, h); s < 1 {
		w, h = w*s, h*s
	}
	if s := 768 / math.Min(w, h); s < 1 {
		w, h = w*s, h*s
	}
	return r.base + r.tile*int(math.Ceil(w/512))*int(math.Ceil(h/512)), nil
}

// openAIPatches is the patch rule: the 32-pixel patches covering the image, at most 1536 (an
// image needing more is scaled down so that whole patches fit), times the model's multiplier.
// The guide does not say how a fractional product is rounded: up, here.
type openAIPatches struct {
	family string
	mult   float64
}

func (r openAIPatches) Name() string {
	return fmt.Sprintf("%s (OpenAI: 32-pixel patches, at most 1536, ×%g)", r.family, r.mult)
}

func (r openAIPatches) Tokens(width, height int) (int, error) {
	n, err := Patches32(width, height)
	if err != nil {
		return 0, err
	}
	return int(math.Ceil(float64(n)*r.mult - 1e-9)), nil
}

// Patches32 is the patch count of OpenAI's patch rule before the multiplier: the guide's
// examples are 1024×1024 → 1024 and 1800×2400 → 1452.
func Patches32(width, height int) (int, error) {
	if width <= 0 || height <= 0 {
		return 0, fmt.Errorf("image size %dx%d: both sides must be positive", width, height)
	}
	const patch, budget = 32.0, 1536
	w, h := float64(width), float64(height)
	if n := math.Ceil(w/patch) * math.Ceil(h/patch); n <= budget {
		return int(n), nil
	}
	s := math.Sqrt(patch * patch * budget / (w * h))
	s *= math.Min(math.Floor(w*s/patch)/(w*s/patch), math.Floor(h*s/patch)/(h*s/patch))
	return int(math.Ceil(w*s/patch)) * int(math.Ceil(h*s/patch)), nil
}

// anthropicRule is Claude's: about width·height/750 tokens, after an image whose long edge
// is over 1568 pixels or whose count is over about 1600 is scaled down, aspect kept, to fit.
// Source: Anthropic's "Vision" guide, "Evaluate image size" and "Calculate image costs"
// (docs.anthropic.com/en/docs/build-with-claude/vision, as served 2026), whose table gives
// 200×200 ≈ 54, 1000×1000 ≈ 1334 and 1092×1092 ≈ 1590 tokens: the quotient rounded up.
type anthropicRule struct{}

func (anthropicRule) Name() string {
	return "claude (Anthropic: width·height/750, at most 1568 pixels a side)"
}

func (anthropicRule) Tokens(width, height int) (int, error) {
	if width <= 0 || height <= 0 {
		return 0, fmt.Errorf("image size %dx%d: both sides must be positive", width, height)
	}
	const longest, most = 1568.0, 1600.0
	w, h := float64(width), float64(height)
	s := math.Min(1, longest/math.Max(w, h))
	s = math.Min(s, math.Sqrt(most*750/(w*h)))
	if s < 1 {
		w, h = math.Floor(w*s), math.Floor(h*s)
	}
	return int(math.Ceil(w * h / 750)), nil
}

// geminiRule is Gemini's (2.0 and later): 258 tokens for an image no larger than 384 pixels
// on both sides; a larger one is cropped and scaled into 768×768 tiles of 258 tokens each.
// Source: Google's Gemini API "Image understanding" guide, "Technical details: token
// calculation" (ai.google.dev/gemini-api/docs/image-understanding, as served 2026). The
// guide does not publish its crop arithmetic: the tiles covering the image, here.
type geminiRule struct{}

func (geminiRule) Name() string { return "gemini (Google: 258 per 768-pixel tile, 258 up to 384×384)" }

func (geminiRule) Tokens(width, height int) (int, error) {
	if width <= 0 || height <= 0 {
		return 0, fmt.Errorf("image size %dx%d: both sides must be positive", width, height)
	}
	if width <= 384 && height <= 384 {
		return 258, nil
	}
	return 258 * ((width + 767) / 768) * ((height + 767) / 768), nil
}
