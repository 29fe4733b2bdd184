package media

import (
	"fmt"
	"math"
	"strings"
)

// logged.go holds the rules by which hosted models counted a logged image, as their providers
// document them: what a gateway or cloud log's prompt count holds for each image, so that the
// text's share of it can be told (the replay's own count is the target model's Rule). These
// are the providers' published approximations, not a processor's code.

// Claude is Anthropic's documented count ("Vision", "Calculate image costs",
// https://docs.anthropic.com/en/docs/build-with-claude/vision): an image whose long edge is
// over 1568 pixels, or which would be over about 1,600 tokens, is first scaled down keeping
// its aspect ratio until it is within both; it then costs width×height/750 tokens (the page's
// table: 200×200 about 54, 1000×1000 about 1334, 1092×1092 about 1590, so rounded up).
type Claude struct{}

// Name implements Rule.
func (Claude) Name() string {
	return "Anthropic's documented count (width×height/750, long edge ≤ 1568)"
}

// Tokens implements Rule.
func (Claude) Tokens(width, height int) (int, error) {
	if width <= 0 || height <= 0 {
		return 0, fmt.Errorf("image size %dx%d", width, height)
	}
	w, h := float64(width), float64(height)
	s := math.Min(1, 1568/math.Max(w, h))
	s = math.Min(s, math.Sqrt(1600*750/(w*h)))
	w, h = max(1, math.Floor(w*s)), max(1, math.Floor(h*s))
	return int(math.Ceil(w * h / 750)), nil
}

// Gemini is Google's documented count for Gemini 2.0 and later ("Understand and count
// tokens", multimodal tokens, https://ai.google.dev/gemini-api/docs/tokens; Vertex AI's
// "Image understanding" page says the same): an image with both sides at most 384 pixels is
// 258 tokens; a larger one is cropped and scaled into tiles of 768×768, each 258 tokens. The
// pages do not give the tiling; it is taken here as ceil(width/768)·ceil(height/768) tiles.
type Gemini struct{}

// Name implements Rule.
func (Gemini) Name() string { return "Gemini's documented count (258 tokens a 768×768 tile)" }

// Tokens implements Rule.
func (Gemini) Tokens(width, height int) (int, error) {
	if width <= 0 || height <= 0 {
		return 0, fmt.Errorf("image size %dx%d", width, height)
	}
	if width <= 384 && height <= 384 {
		return 258, nil
	}
	tiles := ((width + 767) / 768) * ((height + 767) / 768)
	return 258 * tiles, nil
}

// LoggedRule is the documented rule of the hosted model a log names (a Bedrock model id, a
// Vertex model), nil when the name says nothing replay knows.
func LoggedRule(model string) Rule {
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "claude") || strings.Contains(m, "anthropic"):
		return Claude{}
	case strings.Contains(m, "gemini"):
		return Gemini{}
	}
	return nil
}
