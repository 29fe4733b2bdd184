package sim

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/media"
)

// imageMessage is a chat body whose user message holds text parts around images.
func imageMessage(urls ...string) map[string]any {
	parts := []any{map[string]any{"type": "text", "text": "look"}}
	for _, u := range urls {
		parts = append(parts, map[string]any{"type": "image_url", "image_url": map[string]any{"url": u, "detail": "high"}})
	}
	parts = append(parts, map[string]any{"type": "text", "text": " closely"})
	return map[string]any{"model": "m", "max_tokens": 2, "stream": false,
		"messages": []any{map[string]any{"role": "user", "content": parts}}}
}

func usagePrompt(t *testing.T, res sseResult) int {
	t.Helper()
	var a struct {
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(res.body, &a); err != nil {
		t.Fatalf("%v: %s", err, res.body)
	}
	return a.Usage.PromptTokens
}

// TestChatImages: image_url parts are read from their header and counted by the configured
// rule on top of the text parts (one after the other, as the counter sees them); an http URL,
// a bad image and an image without a rule are 400s naming the message.
func TestChatImages(t *testing.T) {
	cfg := fastConfig()
	cfg.Images = media.Qwen2VL{Family: "qwen2_vl", Patch: 14, Merge: 2, MinPixels: 3136, MaxPixels: 12845056, Wrap: 2}
	var seen []Message
	cfg.ChatCounter = func(msgs []Message, _ json.RawMessage) (int, error) {
		seen = msgs
		return len(strings.Fields(msgs[0].Content)), nil
	}
	_, url := startServer(t, cfg)
	big, _ := media.Build(1, 1300, 876, media.PNG)
	small, _ := media.Build(2, 20, 20, media.JPEG)
	res := post(t, url, "/v1/chat/completions", imageMessage(media.DataURL(big.MIME, big.Data), media.DataURL(small.MIME, small.Data)))
	if res.status != 200 {
		t.Fatalf("%d: %s", res.status, res.body)
	}
	// "look closely" is 2 words; 1300×876 is 1426 pads and 20×20 4 (56×56), each with 2 wrappers.
	if got := usagePrompt(t, res); got != 2+1428+6 {
		t.Errorf("prompt tokens %d, want 2 + 1428 + 6", got)
	}
	if len(seen) != 1 || seen[0].Content != "look closely" || len(seen[0].Images) != 2 || seen[0].Images[0].Width != 1300 {
		t.Errorf("the counter saw %+v", seen)
	}
	for name, c := range map[string]struct {
		cfg  func(*Config)
		body map[string]any
		want string
	}{
		"http URL":  {nil, imageMessage("https://example.com/a.png"), "from this machine only"},
		"truncated": {nil, imageMessage(media.DataURL(big.MIME, big.Data[:30])), "header"},
		"no rule":   {func(c *Config) { c.Images = nil }, imageMessage(media.DataURL(small.MIME, small.Data)), "no image token rule"},
	} {
		cc := cfg
		if c.cfg != nil {
			c.cfg(&cc)
		}
		_, u := startServer(t, cc)
		res := post(t, u, "/v1/chat/completions", c.body)
		if res.status != 400 || !strings.Contains(string(res.body), c.want) || !strings.Contains(string(res.body), "messages[0]") {
			t.Errorf("%s: %d %s; want 400 naming messages[0] and %q", name, res.status, res.body, c.want)
		}
	}
}

// TestEncoderCost: an image's encoder time is charged once, in the step that starts the
// request's prefill: a request with 500 image tokens at 1 ms each answers 500 ms later than
// with no encoder cost, and a text-only request pays nothing for it.
func TestEncoderCost(t *testing.T) {
	elapsed := func(perToken time.Duration, body map[string]any) time.Duration {
		cfg := fastConfig()
		cfg.Images = media.Fixed(500)
		cfg.EncodePerMediaToken = perToken
		_, url := startServer(t, cfg)
		best := time.Hour
		for range 3 { // the least of three: a loaded machine only adds
			start := time.Now()
			if res := post(t, url, "/v1/chat/completions", body); res.status != 200 {
				t.Fatalf("%d %s", res.status, res.body)
			}
			best = min(best, time.Since(start))
		}
		return best
	}
	img, _ := media.Build(3, 64, 64, media.PNG)
	withImage := imageMessage(media.DataURL(img.MIME, img.Data))
	text := imageMessage()
	free, charged := elapsed(0, withImage), elapsed(time.Millisecond, withImage)
	if d := charged - free; d < 400*time.Millisecond || d > 2*time.Second {
		t.Errorf("an image of 500 tokens at 1 ms a token: %v with the encoder, %v without (want about 500 ms more)", charged, free)
	}
	if d := elapsed(time.Millisecond, text) - elapsed(0, text); d > 250*time.Millisecond {
		t.Errorf("a text-only request paid %v for the encoder", d)
	}
}
